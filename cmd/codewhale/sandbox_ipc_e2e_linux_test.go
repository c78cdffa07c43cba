package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// ipcProbe stands in for a program that would do harm through the kernel's
// other doors: it finds the codewhale agent above it (past the sandbox
// spawner, `codewhale __sandbox`, which a command can signal: README,
// Sandbox) and tries to stop each of its threads (continuing any it
// stopped at once), or connects to a unix socket (a leading @: an abstract
// one). It prints REACHED when it got through, "refused" when the kernel
// said no.
var ipcProbe = `import ctypes, os, signal, socket, sys
def agent():
    a = os.getppid()
    while a > 1:
        if open("/proc/%d/comm" % a).read().strip() == "codewhale" and b"__sandbox" not in open("/proc/%d/cmdline" % a, "rb").read():
            return a
        a = int(open("/proc/%d/stat" % a).read().rsplit(")", 1)[1].split()[1])
    return 0
if sys.argv[1] == "threads":
    a, libc, reached = agent(), ctypes.CDLL(None, use_errno=True), []
    for tid in os.listdir("/proc/%d/task" % a) if a else []:
        if libc.syscall(` + strconv.Itoa(unix.SYS_TGKILL) + `, a, int(tid), signal.SIGSTOP) == 0:
            libc.syscall(` + strconv.Itoa(unix.SYS_TGKILL) + `, a, int(tid), signal.SIGCONT)
            reached.append(tid)
    print("REACHED" if reached else "refused", *reached)
else:
    addr = sys.argv[2]
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect("\0" + addr[1:] if addr.startswith("@") else addr)
        print("REACHED")
    except OSError as e:
        print("refused: dial unix %s: %s" % (addr, e))
`

// findAgent sets $a to the codewhale agent above the shell, as ipcProbe
// finds it (1 when none is visible, as in bubblewrap's pid namespace).
const findAgent = `a=$PPID; while [ "$a" -gt 1 ]; do [ "$(cat /proc/$a/comm)" = codewhale ] && ! grep -qa __sandbox /proc/$a/cmdline && break; a=$(cut -d' ' -f4 /proc/$a/stat); done; `

// ipcRows are the hostile commands of issue 23 that only the kernel can
// refuse: each prints REACHED when it got through and "refused" (with the
// kernel's error) when not. Block major 60 is reserved for local use and
// never allocated: a node the sandbox failed to refuse names no device.
func ipcRows(outsideSock, abstract string) [][2]string {
	return [][2]string{
		{"mknod block", `if mknod ./blk b 60 0 && printf x 1<>./blk; then echo REACHED; else echo refused; fi`},
		{"mknod char", `if mknod ./chr c 1 3; then echo REACHED; else echo refused; fi`},
		{"kill -STOP the agent", findAgent + `if [ "$a" -gt 1 ] && kill -STOP "$a"; then kill -CONT "$a"; echo REACHED; else echo refused; fi`},
		{"tgkill the agent's threads", `python3 probe.py threads`},
		{"abstract socket", `python3 probe.py socket @` + abstract},
		{"named socket outside", `python3 probe.py socket ` + outsideSock},
	}
}

// countingListener accepts connections on addr and counts them.
func countingListener(t *testing.T, addr string) *atomic.Int32 {
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

// doors is a codewhale run for TestHostileKernelDoorsUnderSandbox: root's
// (the agent confines a thread itself) or an unprivileged user's (the
// spawner in a user namespace).
type doors struct {
	ws     string
	config func(body string)
	run    func(args ...string) (stdout, stderr string, code int)
}

// In every posture that runs commands (--auto and Full Access), with the
// network allowed and denied, run as root and unprivileged, the sandbox
// refuses what only the kernel can: device nodes, signals to the agent
// (its process and each of its threads), an abstract unix socket held by
// this test, and, with the network denied, a unix socket outside the
// writable roots that stands for Docker's or D-Bus's (with the network
// allowed a kernel below Landlock ABI 9 lets that one through, which
// /status says). Each command runs as written and from a script file,
// which no parser sees into.
func TestHostileKernelDoorsUnderSandbox(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		e2e.Missing(t, "python3 is not installed (the probes are Python)")
	}
	for _, user := range []string{"root", "unprivileged"} {
		for _, flag := range []string{"--auto", "--yolo"} {
			for _, network := range []string{"allow", "deny"} {
				t.Run(user+" "+flag+" network "+network, func(t *testing.T) {
					t.Parallel()
					srv := fakemodel.New(t)
					runKernelDoors(t, srv, doorsFor(t, srv, user), flag, network)
				})
			}
		}
	}
}

func doorsFor(t *testing.T, srv *fakemodel.Server, user string) doors {
	if user == "root" {
		c, _ := sandboxedCLI(t, srv)
		return doors{ws: c.ws, config: c.config, run: c.run}
	}
	u := newUnprivileged(t, srv)
	return doors{ws: u.ws, run: func(args ...string) (string, string, int) { return u.run(t, args...) },
		config: func(body string) { writeFiles(t, u.home, map[string]string{".codewhale/config.toml": body}) }}
}

func runKernelDoors(t *testing.T, srv *fakemodel.Server, d doors, flag, network string) {
	d.config("[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n[network]\ndefault = \"" + network + "\"\n")
	dir, err := os.MkdirTemp("", "cwsock") // short: a socket's path has at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "docker.sock")
	abstract := fmt.Sprintf("codewhale-e2e-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	accepted := []*atomic.Int32{countingListener(t, sock), countingListener(t, "@"+abstract)}
	// Reachable to any user but for the sandbox, as Docker's socket is to
	// the members of its group.
	for p, mode := range map[string]os.FileMode{dir: 0o755, sock: 0o777} {
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	writeFiles(t, d.ws, map[string]string{"probe.py": ipcProbe})
	rows := ipcRows(sock, abstract)
	var calls []fakemodel.Call
	for i, r := range rows {
		file := filepath.Join("hostile", strconv.Itoa(i)+".sh")
		writeFiles(t, d.ws, map[string]string{file: r[1] + "\n"})
		calls = append(calls, fakemodel.Call{ID: fmt.Sprintf("k%d_0", i), Name: "Bash", Args: jsonCommand(r[1])},
			fakemodel.Call{ID: fmt.Sprintf("k%d_1", i), Name: "Bash", Args: jsonCommand("sh " + file)})
	}
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		if r.HasToolResult("") {
			return fakemodel.Text("done")
		}
		return fakemodel.Tools(calls...)
	})
	if out, errOut, code := d.run("exec", flag, "probe the kernel"); code != 0 {
		t.Fatalf("code %d\n%s\n%s", code, out, errOut)
	}
	checkKernelDoors(t, toolResults(srv.Requests()[1]), rows, network)
	if (network == "deny" && accepted[0].Load() != 0) || accepted[1].Load() != 0 {
		t.Errorf("the test's sockets accepted %d (named) and %d (abstract) connections", accepted[0].Load(), accepted[1].Load())
	}
	for _, n := range []string{"blk", "chr"} {
		if _, err := os.Lstat(filepath.Join(d.ws, n)); err == nil {
			t.Errorf("a device node %s was made in the workspace", n)
		}
	}
}

// checkKernelDoors: no row got through, and each ran from its script file.
func checkKernelDoors(t *testing.T, results map[string]string, rows [][2]string, network string) {
	t.Helper()
	for i, r := range rows {
		for form := range 2 {
			res := results[fmt.Sprintf("k%d_%d", i, form)]
			ran := strings.Contains(res, "REACHED") || strings.Contains(res, "refused")
			switch {
			case r[0] == "named socket outside" && network == "allow":
				continue // reachable below Landlock ABI 9; internal/sandbox and /status cover it
			case strings.Contains(res, "REACHED"):
				t.Errorf("%s (form %d) got through: %s", r[0], form, res)
			case !ran && form == 1:
				t.Errorf("%s from a script file did not run: %s", r[0], res)
			}
		}
	}
}
