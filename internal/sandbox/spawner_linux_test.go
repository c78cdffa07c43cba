package sandbox

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// spawnerOf runs a command under sb and returns its parent's pid, which
// must be a spawner (codewhale __sandbox --spawner), not a per-command
// helper that executed itself away.
func spawnerOf(t *testing.T, sb *Sandbox, dir string) int {
	t.Helper()
	out, ok := run(t, sb, dir, `echo $PPID; tr '\0' ' ' < /proc/$PPID/cmdline`)
	lines := strings.SplitN(out, "\n", 2)
	if !ok || len(lines) != 2 || !strings.Contains(lines[1], HelperArg+" "+helperSpawner+" ") {
		t.Fatalf("the command's parent is not a spawner: %s", out)
	}
	pid, err := strconv.Atoi(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// Commands that need the user namespace go through one long-lived spawner
// (not a helper re-executed per command), and a spawner killed between
// commands is replaced by the next start.
// README.md "Sandbox": one long-lived spawner serves the commands and is replaced when it dies.
func TestSpawnerServesCommandsAndRestarts(t *testing.T) {
	v := userNSVariant(t)
	w := newWorld(t)
	sb := New(w.policy(WorkspaceWrite, true), v.options())
	first := spawnerOf(t, sb, w.ws)
	if again := spawnerOf(t, sb, w.ws); again != first {
		t.Fatalf("a second command got another spawner (%d, then %d)", first, again)
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Once it is gone a send to it fails, and the start goes to a new one.
	// (A start sent while it was dying fails instead: it cannot be known
	// whether that command ran.)
	waitGone(t, first)
	next := spawnerOf(t, sb, w.ws)
	if next == first {
		t.Fatalf("the killed spawner %d still served", first)
	}
	// The new one confines as the old did.
	if out, ok := run(t, sb, w.ws, `touch top.txt && ! touch .git/x 2>/dev/null && echo ok`); !ok || out != "ok" {
		t.Fatalf("after the restart: %s", out)
	}
}

// A command in flight when its spawner dies dies with it, and its Wait
// says so rather than reporting success.
func TestSpawnerDeathEndsItsCommands(t *testing.T) {
	v := userNSVariant(t)
	w := newWorld(t)
	sb := New(w.policy(WorkspaceWrite, true), v.options())
	cmd := exec.Command("/bin/sh", "-c", `echo $PPID; exec sleep 300`)
	cmd.Dir = w.ws
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = wr
	p, err := sb.Start(cmd)
	wr.Close()
	if err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 32)
	n, _ := r.Read(line)
	spawner, err := strconv.Atoi(strings.TrimSpace(string(line[:n])))
	if err != nil {
		t.Fatalf("no spawner pid: %q", line[:n])
	}
	if err := syscall.Kill(spawner, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err == nil || p.Exited() || !strings.Contains(err.Error(), "spawner") {
		t.Fatalf("wait %v, exited %v", err, p.Exited())
	}
	waitGone(t, cmd.Process.Pid) // the kill (Pdeathsig) is on its way
}

// waitGone waits until pid has exited: its pidfd turns readable then.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return // already gone
	}
	defer unix.Close(fd)
	if n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 10_000); err != nil || n != 1 {
		t.Fatalf("process %d is still running (poll %d %v)", pid, n, err)
	}
}

// How a command ends reads the same through the spawner as when this
// process starts it: exit codes, signals, the error's text.
func TestSpawnedExitStatusIsExact(t *testing.T) {
	v := userNSVariant(t)
	w := newWorld(t)
	sb := New(w.policy(WorkspaceWrite, false), v.options())
	for _, script := range []string{`exit 0`, `exit 3`, `exit 255`, `kill -TERM $$`, `kill -KILL $$`, `kill -SEGV $$`} {
		got := outcome(t, sb, w.ws, script)
		want := outcome(t, nil, w.ws, script)
		if got != want {
			t.Errorf("%s: spawned %q, unconfined %q", script, got, want)
		}
	}
}

func outcome(t *testing.T, sb *Sandbox, dir, script string) string {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = dir
	p, err := sb.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	err = p.Wait()
	msg := "<nil>"
	if err != nil {
		msg = err.Error()
	}
	return strconv.Itoa(p.ExitCode()) + " " + strconv.FormatBool(p.Exited()) + " " + msg
}

// A command the spawner cannot start is reported as not started, with
// exec's own error, and the next command runs.
func TestSpawnerReportsFailedStarts(t *testing.T) {
	v := userNSVariant(t)
	w := newWorld(t)
	sb := New(w.policy(WorkspaceWrite, true), v.options())
	cmd := &exec.Cmd{Path: filepath.Join(w.ws, "no-such-program"), Args: []string{"x"}, Dir: w.ws}
	if p, err := sb.Start(cmd); err == nil || p != nil || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing program: %v %v", p, err)
	}
	cmd = exec.Command("/bin/true")
	cmd.Dir = filepath.Join(w.ws, "no-such-dir")
	if p, err := sb.Start(cmd); err == nil || p != nil {
		t.Fatalf("missing directory: %v %v", p, err)
	}
	if out, ok := run(t, sb, w.ws, `echo fine`); !ok || out != "fine" {
		t.Fatalf("next command: %s", out)
	}
}

// Stdin from a reader, a script larger than a socket message, an
// environment and a working directory reach the command as exec.Cmd
// passes them.
func TestSpawnedCommandGetsItsInputs(t *testing.T) {
	v := userNSVariant(t)
	w := newWorld(t)
	sb := New(w.policy(WorkspaceWrite, true), v.options())
	big := strings.Repeat("x", 100<<10) // six of them: far beyond one socket message
	cmd := exec.Command("/bin/sh", "-c", `read line; echo "$line $V $(pwd) ${#1} $#"`, "sh", big, big, big, big, big, big)
	cmd.Dir, cmd.Env = filepath.Join(w.ws, "sub"), []string{"V=val"}
	cmd.Stdin = strings.NewReader("from-stdin\n")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := sb.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	want := "from-stdin val " + filepath.Join(w.ws, "sub") + " " + strconv.Itoa(len(big)) + " 6\n"
	if out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
}

// Commands started at the same time under different policies each get
// their own: read-only beside workspace-write, network denied beside
// allowed.
func TestConcurrentSpawnedPoliciesStayApart(t *testing.T) {
	v := userNSVariant(t)
	w := newWorld(t)
	agentNet, err := os.Readlink("/proc/thread-self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	ww := New(w.policy(WorkspaceWrite, true), v.options())
	boxes := map[string]*Sandbox{"rw-net": ww, "rw-nonet": ww.WithPolicy(w.policy(WorkspaceWrite, false)),
		"ro": ww.WithMode(ReadOnly)}
	// Each waits until all have started, so they run side by side.
	gate := filepath.Join(w.base, "go")
	script := `while [ ! -e "$G" ]; do sleep 0.01; done
		readlink /proc/self/ns/net; if touch "$W/$N.txt" 2>/dev/null; then echo wrote; else echo refused; fi`
	got := map[string][]string{}
	outs := map[string]*bytes.Buffer{}
	procs := map[string]*Process{}
	for name, sb := range boxes {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir = w.ws
		cmd.Env = []string{"G=" + gate, "N=" + name, "W=" + w.ws, "PATH=/usr/bin:/bin"}
		outs[name] = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = outs[name], outs[name]
		p, err := sb.Start(cmd)
		if err != nil {
			t.Fatal(err)
		}
		procs[name] = p
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("%s: %v %s", name, err, outs[name])
		}
		got[name] = strings.Split(strings.TrimSpace(outs[name].String()), "\n")
	}
	for name, lines := range got {
		if len(lines) != 2 {
			t.Fatalf("%s: %q", name, lines)
		}
		denied := name != "rw-net"
		if (lines[0] != agentNet) != denied {
			t.Errorf("%s: network namespace %s (the agent's is %s)", name, lines[0], agentNet)
		}
		if want := map[bool]string{true: "refused", false: "wrote"}[name == "ro"]; lines[1] != want {
			t.Errorf("%s: %s, want %s", name, lines[1], want)
		}
	}
	if got["rw-nonet"][0] == got["ro"][0] {
		t.Errorf("two network-denied commands share a network namespace")
	}
}

// A path replaced from outside after the spawner bound it (its mount then
// follows the old directory, or is detached) is protected all the same:
// the spawner sees the change and is replaced. So is a protected path that
// appears later.
func TestSpawnerFollowsTheFilesystem(t *testing.T) {
	v := userNSVariant(t)
	w := newWorld(t)
	sb := New(w.policy(WorkspaceWrite, true), v.options())
	git := filepath.Join(w.ws, ".git")
	first := spawnerOf(t, sb, w.ws)
	if err := os.Rename(git, filepath.Join(w.base, "old-git")); err != nil {
		t.Fatal(err)
	}
	mustMkdir(t, git)
	if out, ok := run(t, sb, w.ws, `touch .git/config`); ok {
		t.Fatalf("a replaced .git was writable: %s", out)
	}
	if err := os.RemoveAll(git); err != nil {
		t.Fatal(err)
	}
	mustMkdir(t, git)
	if out, ok := run(t, sb, w.ws, `touch .git/config`); ok {
		t.Fatalf("a recreated .git was writable: %s", out)
	}
	if spawnerOf(t, sb, w.ws) == first {
		t.Fatal("the stale spawner kept serving")
	}
	// A protected path that did not exist when the spawner started.
	dot := filepath.Join(w.ws, ".codewhale")
	if err := os.RemoveAll(dot); err != nil {
		t.Fatal(err)
	}
	run(t, sb, w.ws, `true`)
	mustMkdir(t, dot)
	if out, ok := run(t, sb, w.ws, `touch .codewhale/config.toml`); ok {
		t.Fatalf(".codewhale appeared after the spawner started and was writable: %s", out)
	}
}

// A hostile command cannot reach the spawner's socket: it inherits no
// socket, and a spawner started by hand without its agent's socket does
// nothing. (Taking the socket from the spawner: TestCommandsCannotReachTheirStarter.)
// README.md "Sandbox": the spawner's socket is one no command inherits.
func TestCommandsCannotReachTheSpawner(t *testing.T) {
	v := userNSVariant(t)
	w := newWorld(t)
	sb := New(w.policy(WorkspaceWrite, true), v.options())
	out, _ := run(t, sb, w.ws, `for f in /proc/self/fd/*; do readlink "$f"; done | grep -c socket:;
		ls -l /proc/$PPID/fd/ 2>/dev/null | grep -c socket:`)
	if out != "0\n0" {
		t.Fatalf("a command sees a socket:\n%s", out)
	}
	// By hand: fd 3 is not a socket.
	cmd := exec.Command(os.Args[0], HelperArg, helperSpawner, `{"outside":"user:[1] mnt:[2]"}`)
	cmd.ExtraFiles = []*os.File{os.Stdin}
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "not") {
		t.Fatalf("a spawner without its socket: %v %s", err, out)
	}
}
