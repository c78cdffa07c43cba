package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

const flagKey = "sk-flag0123456789abcdef0123456789"

func bearer(r *fakemodel.Request) string {
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// README.md "Quick start": --api-key-file PATH and --api-key - (one line on stdin) work without a warning.
func TestAPIKeyFromFileAndStdin(t *testing.T) {
	t.Parallel()
	t.Run("file", func(t *testing.T) {
		t.Parallel()
		srv := fakemodel.New(t, fakemodel.Text("ok"))
		c := newCLI(t, srv)
		path := filepath.Join(t.TempDir(), "key")
		if err := os.WriteFile(path, []byte(flagKey+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := c.run("--api-key-file", path, "exec", "hi")
		if code != 0 || out != "ok\n" || bearer(srv.Requests()[0]) != flagKey || strings.Contains(errOut, "warning") {
			t.Fatalf("code %d out %q err %q auth %q", code, out, errOut, bearer(srv.Requests()[0]))
		}
	})
	t.Run("stdin", func(t *testing.T) {
		t.Parallel()
		srv := fakemodel.New(t, fakemodel.Text("ok"))
		c := newCLI(t, srv)
		cmd := c.command("--api-key", "-", "exec", "hi")
		cmd.Stdin = strings.NewReader(flagKey + "\n")
		out, err := cmd.Output()
		if err != nil || string(out) != "ok\n" || bearer(srv.Requests()[0]) != flagKey {
			t.Fatalf("%v out %q auth %q", err, out, bearer(srv.Requests()[0]))
		}
	})
	t.Run("empty file", func(t *testing.T) {
		t.Parallel()
		c := newCLI(t, fakemodel.New(t))
		path := filepath.Join(t.TempDir(), "key")
		if err := os.WriteFile(path, []byte("\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := c.run("--api-key-file", path, "exec", "hi")
		if code == 0 || !strings.Contains(errOut, "no key in "+path) {
			t.Fatalf("code %d err %q", code, errOut)
		}
	})
}

// A literal --api-key warns and leaves the process list at once: while the
// run talks to the model its command line carries no key, and the key still
// authenticates.
// README.md "Quick start": a literal --api-key re-executes (same pid) with --api-key-file.
func TestLiteralAPIKeyLeavesTheProcessList(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/<pid>/cmdline")
	}
	// The command line is read while the request is held: the process is
	// then certainly alive and past its re-exec (read after the handler
	// returned, a loaded machine once found it a zombie, cmdline empty).
	type seen struct {
		r       *fakemodel.Request
		cmdline []byte
		err     error
	}
	arrived := make(chan seen, 1)
	var pid int
	started := make(chan struct{}) // closed once pid is set
	srv := fakemodel.New(t)
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		<-started
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		select {
		case arrived <- seen{r, b, err}:
		default:
		}
		return fakemodel.Reply{Stall: true}
	})
	c := newCLI(t, srv)
	cmd := c.command("--api-key", flagKey, "exec", "hi")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid = cmd.Process.Pid
	close(started)
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	got := <-arrived
	if bearer(got.r) != flagKey {
		t.Errorf("the key did not reach the provider: %q", bearer(got.r))
	}
	cmdline, err := got.cmdline, got.err
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cmdline), flagKey) || !strings.Contains(string(cmdline), "--api-key-file") {
		t.Errorf("command line: %q", strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if !strings.Contains(stderr.String(), "warning: --api-key shows the key") {
		t.Errorf("no warning: %q", stderr.String())
	}
}
