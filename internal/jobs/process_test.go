package jobs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// CONTRACT.md §12.1: a job ends Completed or Failed (a signal without an exit code), stdout and stderr apart.
func TestCommandOutcomes(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	tests := []struct {
		name       string
		spec       Spec
		status     Status
		exit       string
		stdout     string
		stderr     string
		signaled   bool
		background bool
	}{
		{"echo completes", Spec{Command: "echo hi"}, Completed, "0", "hi\n", "", false, false},
		{"stderr is separate", Spec{Command: "echo out; echo err >&2"}, Completed, "0", "out\n", "err\n", false, false},
		{"non-zero exit fails", Spec{Command: "echo bad >&2; exit 3"}, Failed, "3", "", "bad\n", false, false},
		{"signal fails without exit code", Spec{Command: "kill -9 $$"}, Failed, "-", "", "", true, false},
		{"combined output is one stream", Spec{Command: "echo a; echo b >&2; echo c", Combined: true}, Completed, "0", "a\nb\nc\n", "", false, false},
		{"stdin data is delivered and closed", Spec{Command: "cat", Stdin: "fed\n"}, Completed, "0", "fed\n", "", false, false},
		{"program runs without a shell", Spec{Program: "printf", Args: []string{"%s|", "$HOME", "a b"}}, Completed, "0", "$HOME|a b|", "", false, false},
		{"cwd is honoured", Spec{Command: "basename \"$PWD\""}, Completed, "0", "", "", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j, d := run(t, m, tc.spec)
			if d.Status != tc.status || ExitLabel(d.ExitCode) != tc.exit || d.Signaled != tc.signaled {
				t.Fatalf("status %s exit %s signaled %v, want %s %s %v", d.Status, ExitLabel(d.ExitCode), d.Signaled, tc.status, tc.exit, tc.signaled)
			}
			if tc.name == "cwd is honoured" {
				if got := strings.TrimSpace(d.Stdout.Content); got == "" || got == "/" {
					t.Fatalf("cwd output %q", got)
				}
				return
			}
			if d.Stdout.Content != tc.stdout || d.Stderr.Content != tc.stderr {
				t.Fatalf("stdout %q stderr %q, want %q %q", d.Stdout.Content, d.Stderr.Content, tc.stdout, tc.stderr)
			}
			if !strings.HasPrefix(j.ID(), "shell_") || len(j.ID()) != len("shell_")+8 {
				t.Fatalf("id %q is not shell_<8 hex>", j.ID())
			}
		})
	}
}

func TestStartFailsForMissingDirectory(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	if _, err := m.Start(Spec{Command: "true", Dir: "/nonexistent/dir"}); err == nil {
		t.Fatal("start in a missing directory succeeded")
	}
	if got := len(m.List()); got != 0 {
		t.Fatalf("failed start left %d jobs listed", got)
	}
}

func TestWaitIsSignalledAndReturnsDeltas(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	j, err := m.Start(Spec{Command: "echo first; read line; echo \"got $line\"", Dir: t.TempDir(), KeepStdin: true, Background: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := m.Interact(ctx, j.ID(), "", false, 5*time.Second, ModelReader)
	if err != nil || d.Stdout.Content != "first\n" || d.Status != Running {
		t.Fatalf("first interact: %+v %v", d, err)
	}
	if d, _ = m.Wait(ctx, j.ID(), 0, ModelReader); d.Stdout.Content != "" || d.Status != Running {
		t.Fatalf("poll without new output: %q %s", d.Stdout.Content, d.Status)
	}
	if err := j.WriteStdin("x\n", false, time.Second); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	d, _ = m.Wait(ctx, j.ID(), 30*time.Second, ModelReader)
	if d.Status != Completed || d.Stdout.Content != "got x\n" {
		t.Fatalf("wait: %s %q", d.Status, d.Stdout.Content)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("wait did not return when the job finished")
	}
	// The user's reader is independent: it still sees everything.
	u, _ := m.Wait(ctx, j.ID(), 0, UserReader)
	if u.Stdout.Content != "first\ngot x\n" {
		t.Fatalf("user reader saw %q", u.Stdout.Content)
	}
}

func TestWaitTimesOutOnARunningJob(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	j, err := m.Start(Spec{Command: "sleep 300", Dir: t.TempDir(), Background: true})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	d, _ := m.Wait(context.Background(), j.ID(), 200*time.Millisecond, ModelReader)
	if d.Status != Running || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("wait returned %s after %v", d.Status, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d, _ = m.Wait(ctx, j.ID(), time.Minute, ModelReader); !d.Canceled {
		t.Fatal("a cancelled wait on a running job is not marked canceled")
	}
}

func TestStdinErrors(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	j, _ := run(t, m, Spec{Command: "true"})
	err := j.WriteStdin("x", false, time.Second)
	if err == nil || err.Error() != "stdin is not available for task "+j.ID() {
		t.Fatalf("err = %v", err)
	}
	if _, err := m.Wait(context.Background(), "shell_nope", 0, ModelReader); err == nil || err.Error() != "Task shell_nope not found" {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestMoveToBackgroundReleasesForegroundWait(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	j, err := m.Start(Spec{Command: "sleep 300", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = m.MoveToBackground(j.ID()) }()
	if moved := m.Await(context.Background(), j); !moved || j.Status() != Running {
		t.Fatalf("moved=%v status=%s", moved, j.Status())
	}
	if _, _, err := m.Cancel(j.ID()); err != nil {
		t.Fatal(err)
	}
	f := m.FinishedSinceLastAsked()
	if len(f.Jobs) != 1 || f.Jobs[0].ID != j.ID() {
		t.Fatalf("moved job not reported: %+v", f.Jobs)
	}
}

// AwaitEnd waits on past a move to /jobs until the job finishes, and a
// context that ends first cancels the job.
func TestAwaitEndWaitsPastAMoveToBackground(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	dir := t.TempDir()
	j, err := m.Start(Spec{Command: "while [ ! -e gate ]; do sleep 0.01; done; echo finished", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.MoveToBackground(j.ID()); err != nil {
		t.Fatal(err)
	}
	go func() { _ = os.WriteFile(filepath.Join(dir, "gate"), nil, 0o644) }()
	m.AwaitEnd(context.Background(), j)
	if s := j.Status(); s != Completed {
		t.Fatalf("AwaitEnd returned with the job %s", s)
	}

	k, err := m.Start(Spec{Command: "sleep 300", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.MoveToBackground(k.ID()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m.AwaitEnd(ctx, k)
	<-k.Done()
	if s := k.Status(); s == Running || s == Completed {
		t.Fatalf("a cancelled wait left the job %s", s)
	}
}
