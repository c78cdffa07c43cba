package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/testutil/fstree"
)

// sandboxedCLI is a cli whose system temp dir is private, so that the
// canary beside the workspace (another temp dir) is outside every writable
// root, as a user's home directory would be.
func sandboxedCLI(t *testing.T, srv *fakemodel.Server) (*cli, string) {
	t.Helper()
	if st := sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite}, sandbox.Options{}).Status(); !st.Enforced {
		e2e.Missing(t, "neither Landlock nor bubblewrap is available: "+st.Reason)
	}
	c := newCLI(t, srv)
	tmp := filepath.Join(c.home, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	c.env = append(c.env, "TMPDIR="+tmp)
	canary := t.TempDir()
	fstree.Write(t, canary, map[string]string{"keep.txt": "canary\n", "dir/deep.txt": "deep\n"})
	return c, canary
}

// snapshot is every entry under root with its mode and content.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %s", p, info.Mode())
		if info.Mode().IsRegular() {
			raw, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %q", raw)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// exec --auto and --yolo approve every hostile command; the sandbox still
// keeps the canary, the repository's .git and .codewhale as they were, and
// the model is told which write was refused.
// README.md "Sandbox": --auto and --yolo do not lift the sandbox; stream-json emits sandbox_denied events and the metadata's sandbox_posture.
func TestExecSandboxHoldsUnderAutoAndFullAccess(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--auto", "--yolo"} {
		t.Run(flag, func(t *testing.T) {
			t.Parallel()
			var calls []fakemodel.Call
			srv := fakemodel.New(t)
			c, canary := sandboxedCLI(t, srv)
			writeRepo(t, c.ws)
			scripts := []string{
				`echo pwned > "` + canary + `/new.txt"`,
				`rm -rf "` + canary + `"`,
				`find "` + canary + `" -type f -delete`,
				`python3 -c 'import shutil; shutil.rmtree("` + canary + `")'`,
				`echo cm0gLXJmIA== | base64 -d >/dev/null; eval "rm -rf ` + canary + `/dir"`,
				`echo x > .git/config`,
				`printf '#!/bin/sh\ntouch ` + canary + `/hooked\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
				`git config core.fsmonitor "touch ` + canary + `/fsmonitor"`,
				`mkdir -p .codewhale && echo 'approval_policy = "bypass"' > .codewhale/config.toml`,
			}
			// Each runs as written (the command classifier may refuse it
			// first) and from a script file, which no parser sees into:
			// then only the sandbox stands in the way.
			if err := os.Mkdir(filepath.Join(c.ws, "hostile"), 0o755); err != nil {
				t.Fatal(err)
			}
			for i, s := range scripts {
				file := filepath.Join("hostile", strconv.Itoa(i)+".sh")
				if err := os.WriteFile(filepath.Join(c.ws, file), []byte(s+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				for j, cmd := range []string{s, "sh " + file} {
					args, _ := json.Marshal(map[string]string{"command": cmd})
					calls = append(calls, fakemodel.Call{ID: fmt.Sprintf("h%d_%d", i, j), Name: "Bash", Args: string(args)})
				}
			}
			srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
				if r.HasToolResult("[sandbox]") {
					return fakemodel.Text("done")
				}
				return fakemodel.Tools(calls...)
			})
			if err := os.MkdirAll(filepath.Join(c.ws, ".codewhale"), 0o755); err != nil {
				t.Fatal(err)
			}
			watched := []string{canary, filepath.Join(c.ws, ".git"), filepath.Join(c.ws, ".codewhale")}
			before := map[string]string{}
			for _, d := range watched {
				before[d] = snapshot(t, d)
			}
			out, errOut, code := c.run("exec", flag, "--output-format", "stream-json", "try everything")
			if code != 0 {
				t.Fatalf("code %d\n%s\n%s", code, out, errOut)
			}
			for _, d := range watched {
				if got := snapshot(t, d); got != before[d] {
					t.Fatalf("%s changed under %s:\nbefore:\n%s\nafter:\n%s", d, flag, before[d], got)
				}
			}
			reqs := srv.Requests()
			last := toolMessages(reqs[len(reqs)-1])
			for _, want := range []string{
				"refused a write to " + canary + "/new.txt: it is outside the writable roots",
				"refused a write to " + filepath.Join(c.ws, ".git", "config") + ": the repository's hooks and config",
				"refused a write to " + filepath.Join(c.ws, ".codewhale"),
			} {
				if !strings.Contains(last, want) {
					t.Errorf("the model was not told %q:\n%s", want, last)
				}
			}
			var denied int
			var posture string
			for _, ev := range lines(t, out) {
				switch ev["type"] {
				case "sandbox_denied":
					denied++
				case "metadata":
					posture, _ = ev["meta"].(map[string]any)["sandbox_posture"].(string)
				}
			}
			if denied < 5 || !strings.HasPrefix(posture, "workspace-write (enforced: ") {
				t.Errorf("%d sandbox_denied events, posture %q", denied, posture)
			}
		})
	}
}

// The child of a Bash call does not see the agent's key.
func TestExecCommandsDoNotInheritTheKey(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "e", Name: "Bash", Args: `{"command":"sh check.sh"}`}),
		fakemodel.Text("ok"))
	c := newCLI(t, srv)
	check := `if [ -z "$DEEPSEEK_API_KEY$CODEWHALE_BASE_URL" ]; then echo scrubbed; else echo leaked; fi` + "\n"
	if err := os.WriteFile(filepath.Join(c.ws, "check.sh"), []byte(check), 0o644); err != nil {
		t.Fatal(err)
	}
	c.env = append(c.env, "DEEPSEEK_API_KEY=sk-e2e-key-not-for-children")
	if _, errOut, code := c.run("exec", "--auto", "check"); code != 0 {
		t.Fatalf("code %d\n%s", code, errOut)
	}
	if got := toolMessages(srv.Requests()[1]); !strings.Contains(got, "scrubbed") || strings.Contains(got, "leaked") {
		t.Fatalf("the command saw the key: %s", got)
	}
}

// kill -9 of codewhale during a foreground Bash call: the shell (Pdeathsig)
// and what it forked (the watchdog) die with it.
// README.md "Sandbox": kill -9 of codewhale takes the command's shell and what it forked with it.
func TestKillDuringForegroundCommandLeavesNothing(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "s", Name: "Bash",
		Args: `{"command":"sleep 300 & echo $$ $! > fifo; wait"}`}), fakemodel.Text("never"))
	c := newCLI(t, srv)
	shell, sleeper, agent := startAndKill(t, c, false)
	for _, pid := range []int{shell, sleeper} {
		if !gone(pid, 5*time.Second) {
			t.Errorf("process %d (shell %d, sleeper %d) outlived the killed codewhale %d", pid, shell, sleeper, agent)
		}
	}
}

// When the watchdog dies with codewhale, the next start stops what was
// left, checked by pid and start time, and says so.
// README.md "Sandbox": the next start stops what a crashed run left, checked by pid and start time, and says so.
func TestNextStartStopsWhatACrashLeft(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "s", Name: "Bash",
		Args: `{"command":"sleep 300 & echo $$ $! > fifo; wait"}`}), fakemodel.Text("fresh start"))
	c := newCLI(t, srv)
	shell, sleeper, _ := startAndKill(t, c, true)
	if !gone(shell, 5*time.Second) {
		t.Fatalf("the shell %d outlived codewhale", shell)
	}
	if gone(sleeper, 0) {
		t.Fatal("the sleeper is already gone: this test would prove nothing")
	}
	out, errOut, code := c.run("exec", "--auto", "hello")
	if code != 0 || out != "fresh start\n" {
		t.Fatalf("code %d out %q\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "Stopped 1 command that a previous codewhale run left running: shell_") ||
		!strings.Contains(errOut, "pid "+strconv.Itoa(shell)) {
		t.Errorf("stderr does not report the leftover:\n%s", errOut)
	}
	if !gone(sleeper, 5*time.Second) {
		t.Fatalf("the leftover sleeper %d survived the next start", sleeper)
	}
}

// startAndKill runs `exec --auto` until its Bash call reports the shell's
// and a forked sleeper's pids through a FIFO, then kills codewhale with
// SIGKILL (and its watchdog first, with killWatchdog).
func startAndKill(t *testing.T, c *cli, killWatchdog bool) (shell, sleeper, agent int) {
	t.Helper()
	fifo := filepath.Join(c.ws, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	stateFile := awaitStateFile(t, c)
	cmd := c.command("exec", "--auto", "sleep")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	agent = cmd.Process.Pid
	done := make(chan struct{})
	defer close(done)
	go func() { // a codewhale that fails before the FIFO opens must not hang the test
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
	}()
	f, err := os.Open(fifo) // blocks until the command opens it
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(f).ReadString('\n')
	f.Close()
	if _, err := fmt.Sscanf(line, "%d %d", &shell, &sleeper); err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("the command wrote %q", line)
	}
	t.Cleanup(func() { _ = syscall.Kill(-shell, syscall.SIGKILL) })
	// The job is registered with the watchdog just before its state file is
	// written: kill only after that, or the test races the agent.
	select {
	case <-stateFile:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("codewhale never wrote its job state file")
	}
	if killWatchdog {
		w := watchdogOf(t, agent)
		if err := syscall.Kill(w, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if !gone(w, 5*time.Second) {
			t.Fatal("the watchdog survived SIGKILL")
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	return shell, sleeper, agent
}

// awaitStateFile returns a channel that is closed when codewhale has written
// the job state file of c's workspace (atomically: a rename, watched with
// inotify).
func awaitStateFile(t *testing.T, c *cli) <-chan struct{} {
	t.Helper()
	ws, err := filepath.EvalSymlinks(c.ws)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(ws))
	dir := filepath.Join(c.home, ".codewhale", "jobs", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_MOVED_TO); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { // ends at the first event, or when the test closes fd
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := unix.Read(fd, buf)
			if err != nil || n <= 0 {
				return
			}
			if m, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(m) > 0 {
				return
			}
		}
	}()
	t.Cleanup(func() { unix.Close(fd) })
	return done
}

// watchdogOf finds the `codewhale __watchdog` child of agent in /proc.
func watchdogOf(t *testing.T, agent int) int {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i > 0 && strings.Contains(string(raw), "__watchdog") {
			if f := strings.Fields(s[i+1:]); len(f) > 1 && f[1] == strconv.Itoa(agent) {
				return pid
			}
		}
	}
	t.Fatalf("codewhale %d has no watchdog", agent)
	return 0
}

// gone reports whether pid has exited or exits within d, waiting on a pidfd
// (readable when the process exits).
func gone(pid int, d time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return err == unix.ESRCH
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(d.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		return err == nil && n == 1
	}
}
