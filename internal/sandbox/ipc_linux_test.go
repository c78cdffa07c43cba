package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// No confined command creates a device node, in a writable root or
// /dev/shm: run as root, one would name a disk past every path rule. Block
// major 60 is reserved for local use and never allocated, and nothing is
// ever written to what a refused mknod would have made.
func TestCommandsCannotMakeDeviceNodes(t *testing.T) {
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			sb := New(w.policy(WorkspaceWrite, true), v.options())
			shm := filepath.Join("/dev/shm", fmt.Sprintf("cw-mknod-%d-%s", os.Getpid(), strings.ReplaceAll(v.name, "+", "-")))
			for _, node := range []string{filepath.Join(w.ws, "blk"), filepath.Join(w.tmp, "blk"), shm} {
				for _, kind := range []string{"b 60 0", "c 1 3"} {
					out, ok := run(t, sb, w.ws, "mknod "+node+" "+kind)
					if _, err := os.Lstat(node); ok || err == nil {
						os.Remove(node)
						t.Errorf("mknod %s %s was not refused (ok=%v): %s", node, kind, ok, out)
					}
				}
			}
		})
	}
}

// Landlock alone refuses device nodes in a writable root: a thread
// confined by restrict with every capability kept (as a root agent that
// cannot drop them would leave them) cannot make one.
// README.md "Sandbox": writable roots grant no mknod of device nodes.
func TestWritableRootsGrantNoDeviceNodes(t *testing.T) {
	if os.Getuid() != 0 {
		e2e.Missing(t, "only root holds CAP_MKNOD, without which mknod fails whatever Landlock grants")
	}
	if c := probeSystem("", ""); c.LandlockABI == 0 {
		e2e.Missing(t, "Landlock is not available")
	}
	dir := t.TempDir()
	node := filepath.Join(dir, "blk")
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread is confined, the runtime ends it
		if err := restrict(Policy{Network: true}, rwRules([]string{dir})); err != nil {
			done <- err
			return
		}
		out, err := exec.Command("mknod", node, "b", "60", "0").CombinedOutput()
		if err == nil {
			err = fmt.Errorf("mknod succeeded: %s", out)
		} else {
			err = nil
		}
		done <- err
	}()
	if err := <-done; err != nil {
		os.Remove(node)
		t.Fatal(err)
	}
	if out, err := exec.Command("mknod", node, "b", "60", "0").CombinedOutput(); err != nil {
		t.Fatalf("unconfined, root could not make the node either (%v %s): the test proves nothing", err, out)
	}
	os.Remove(node)
}

// capMask is the capability set of caps as /proc/<pid>/status prints it.
func capMask(caps []uintptr) string {
	var m uint64
	for _, c := range caps {
		m |= 1 << c
	}
	return fmt.Sprintf("%016x", m)
}

// A command run as root keeps only commandCaps where the agent confines a
// thread itself, and nothing in a user namespace or under bubblewrap.
// README.md "Sandbox": a root command keeps only CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER and CAP_FSETID.
func TestRootCommandsKeepFewCapabilities(t *testing.T) {
	if os.Getuid() != 0 {
		e2e.Missing(t, "the capability drop concerns commands run as root")
	}
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			sb := New(w.policy(WorkspaceWrite, true), v.options())
			out, ok := run(t, sb, w.ws, `grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status`)
			if !ok {
				t.Fatal(out)
			}
			want := capMask(commandCaps)
			if v.caps.UserNS || v.caps.Bwrap != "" {
				want = capMask(nil)
			}
			for _, line := range strings.Split(out, "\n") {
				f := strings.Fields(line)
				exp := want
				switch {
				case f[0] == "CapInh:" || f[0] == "CapAmb:":
					exp = capMask(nil)
				case f[0] == "CapBnd:" && v.caps.Bwrap != "":
					continue // bwrap keeps root from regaining it on exec (securebits) instead
				}
				if len(f) != 2 || f[1] != exp {
					t.Errorf("%s, want %s (kept: %v)", line, exp, commandCaps)
				}
			}
		})
	}
}

// signalScript tries every way to signal the agent ($A), with signal 0
// (which the kernel checks as any other): the process, and each of its
// threads, the one that waits for this command in its Landlock domain
// included. It signals itself first, so a kill that fails for another
// reason shows.
var signalScript = `kill -0 $$ && echo self-ok
kill -0 "$A" 2>/dev/null && echo reached-agent
python3 - <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
agent = int(os.environ["A"])
tasks = "/proc/%d/task" % agent
for tid in os.listdir(tasks) if os.path.isdir(tasks) else []:  # bubblewrap: another pid namespace
    if libc.syscall(` + strconv.Itoa(unix.SYS_TGKILL) + `, agent, int(tid), 0) == 0:
        print("reached-thread", tid)
PY`

// No confined command can signal the agent, neither the process nor any
// of its threads (Landlock's signal scoping, and shieldStarter for the
// thread that shares the command's domain).
// README.md "Sandbox": a command cannot signal codewhale or its threads (Landlock scoping, ABI 6 and later).
func TestCommandsCannotSignalTheAgent(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		e2e.Missing(t, "python3 is not installed (the tgkill probe is a Python script)")
	}
	for _, v := range variants(t) {
		if v.caps.LandlockABI > 0 && v.caps.LandlockABI < scopingABI {
			continue // Status says signals are not scoped
		}
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			sb := New(w.policy(WorkspaceWrite, true), v.options())
			out, _ := run(t, sb, w.ws, signalScript, "A="+strconv.Itoa(os.Getpid()))
			if out != "self-ok" {
				t.Fatalf("a command signalled the agent (or not even itself):\n%s", out)
			}
		})
	}
}

// listenAbstract listens on a fresh abstract unix socket and counts the
// connections it accepts.
func listenAbstract(t *testing.T) (name string, accepted *atomic.Int32) {
	t.Helper()
	name = fmt.Sprintf("codewhale-test-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	return name, listenUnix(t, "@"+name)
}

func listenUnix(t *testing.T, addr string) *atomic.Int32 {
	t.Helper()
	ln, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() { // ends when the test closes ln
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return &n
}

// connectScript connects to the unix socket $S (a leading @ for an
// abstract one) and says whether it could.
const connectScript = `python3 -c '
import os, socket
a = os.environ["S"]
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect("\0" + a[1:] if a.startswith("@") else a)
    print("connected")
except OSError as e:
    print("refused: dial unix %s: %s" % (a, e))
'`

// With the network allowed, a command cannot reach an abstract unix socket
// of a process outside its sandbox (Landlock's scoping, ABI 6).
// README.md "Sandbox": abstract unix sockets of other processes are out of reach under Landlock's scoping.
func TestAbstractSocketsAreScoped(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		e2e.Missing(t, "python3 is not installed (the connect probe is a Python script)")
	}
	for _, v := range variants(t) {
		if v.caps.Bwrap != "" || v.caps.LandlockABI < scopingABI {
			continue // Status lists it under Limits
		}
		t.Run(v.name, func(t *testing.T) {
			w := newWorld(t)
			name, accepted := listenAbstract(t)
			out, _ := run(t, New(w.policy(WorkspaceWrite, true), v.options()), w.ws, connectScript, "S=@"+name)
			if !strings.HasPrefix(out, "refused:") || accepted.Load() != 0 {
				t.Fatalf("a command reached the test's abstract socket: %s (%d accepted)", out, accepted.Load())
			}
		})
	}
}
