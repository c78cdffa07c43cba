package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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
