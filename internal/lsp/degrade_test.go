package lsp

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMisbehavingServersDegradeToNoDiagnostics: a server that crashes,
// hangs on initialize, floods, stops reading, writes what is not LSP or is
// missing gives one "no diagnostics (why)" line, within the wait, and is
// gone when the manager closes.
// CONTRACT.md §6.13: a server that crashes, hangs, floods or stops reading gives the one exact 'LSP: no diagnostics
// from <server> (<why>)' line.
// README.md "Language servers": a server that crashes, hangs or floods gives one `LSP: no diagnostics from <server> (<why>)` line.
func TestMisbehavingServersDegradeToNoDiagnostics(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("// padding to fill the pipe\n", 40000) // ~1 MB: more than a pipe holds
	cases := []struct {
		mode, text, want string
	}{
		{"crash", "package a\n", "LSP: no diagnostics from fake (exited: it exited: exit status 3; stderr: fake: panic: something broke)"},
		{"hang", "package a\n", "LSP: no diagnostics from fake (it is still starting after 700ms; later edits will be checked)"},
		{"flood", "package a\n", "LSP: no diagnostics from fake (it sent 5000 diagnostics for a.go, over the 1000 a file may have)"},
		{"huge", "package a\n", "it sent a 1073741824-byte message, over the 16777216-byte bound)"},
		{"stuck", big, "LSP: no diagnostics from fake ("},
		{"garbage", "package a\n", "LSP: no diagnostics from fake (failed: "},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			wait := 700 * time.Millisecond
			if c.mode == "flood" {
				wait = 20 * time.Second
			}
			m, ws := fakeManager(t, c.mode, wait)
			path := filepath.Join(ws, "a.go")
			got := m.Changed(context.Background(), []Change{{Path: path, After: []byte(c.text)}})
			if !strings.Contains(got, c.want) || strings.Count(got, "\n") != 0 {
				t.Fatalf("got %q, want one line containing %q", got, c.want)
			}
			m.Close()
			for _, s := range m.Status() {
				t.Errorf("after Close a server is still listed: %+v", s)
			}
		})
	}
}

func TestAStuckServerIsStoppedAndSaysWhy(t *testing.T) {
	t.Parallel()
	m, ws := fakeManager(t, "stuck", 500*time.Millisecond)
	big := strings.Repeat("x", 2<<20)
	path := filepath.Join(ws, "a.go")
	if got := m.Changed(context.Background(), []Change{{Path: path, After: []byte("package a\n")}}); !strings.Contains(got, "did not report") {
		t.Fatalf("first change: %q", got)
	}
	got := m.Changed(context.Background(), []Change{{Path: path, After: []byte("package a\n" + big)}})
	if !strings.Contains(got, "it stopped reading its input") {
		t.Fatalf("a change the server does not read: %q", got)
	}
}

// CONTRACT.md §12.8: a server that exits is started again on the next file, a bounded number of times, then stays down
// until /lsp restart.
func TestACrashedServerIsRestartedOnTheNextEdit(t *testing.T) {
	t.Parallel()
	m, ws := fakeManager(t, "crash", 5*time.Second)
	path := filepath.Join(ws, "a.go")
	for i := range maxRestarts + 2 {
		got := m.Changed(context.Background(), []Change{{Path: path, After: []byte("package a\n")}})
		if !strings.Contains(got, "exited: it exited: exit status 3") {
			t.Fatalf("edit %d: %q", i, got)
		}
	}
	st := m.Status()
	if len(st) != 1 || st[0].State != StateExited {
		t.Fatalf("status after the restarts ran out: %+v", st)
	}
	if n := m.Restart("fake"); n != 1 {
		t.Fatalf("Restart stopped %d servers", n)
	}
	if st := m.Status(); len(st) != 0 {
		t.Fatalf("after Restart: %+v", st)
	}
}

func TestRequestsWithoutParamsAreAnswered(t *testing.T) {
	t.Parallel()
	m, ws := fakeManager(t, "noparams", 20*time.Second)
	got := m.Changed(context.Background(), []Change{{Path: filepath.Join(ws, "a.go"), After: []byte("package a\n")}})
	if want := "a.go:1:1 error fake: bad (2 answers)"; !strings.Contains(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// CONTRACT.md §12.8: a configured server whose program is absent is reported, never started.
// README.md "Language servers": a missing server gives the no-diagnostics line and the edit stands on its own.
func TestAMissingServerSaysSo(t *testing.T) {
	t.Parallel()
	srv := Server{Name: "ghost", Command: "codewhale-no-such-language-server", Languages: []string{"go"}}
	m := New(Options{Config: Config{Enabled: true, Servers: []Server{srv}}, Workspace: t.TempDir(), LookPath: exec.LookPath})
	defer m.Close()
	got := m.Changed(context.Background(), []Change{{Path: filepath.Join(t.TempDir(), "a.go"), After: []byte("package a\n")}})
	want := "LSP: no diagnostics from ghost (codewhale-no-such-language-server not found on PATH)"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// No server starts before a file of its language is touched, and a file no
// server takes is not sent anywhere.
// CONTRACT.md §12.8: no server starts before a file of its language is touched, and a file no server takes is sent
// nowhere.
func TestNoServerForAFileCostsNothing(t *testing.T) {
	t.Parallel()
	m, ws := fakeManager(t, "crash", time.Second)
	if s := m.Servers(); len(s) != 1 || !s[0].Found || len(m.Status()) != 0 {
		t.Fatalf("finding the programs: %+v; started: %+v", m.Servers(), m.Status())
	}
	if got := m.Changed(context.Background(), []Change{{Path: filepath.Join(ws, "notes.txt"), After: []byte("hi")}}); got != "" {
		t.Fatalf("got %q", got)
	}
	m.Opened(filepath.Join(ws, "notes.txt"), []byte("hi"))
	if st := m.Status(); len(st) != 0 {
		t.Fatalf("a server started for a file it does not take: %+v", st)
	}
}

// A server that publishes without versions, in parts, is heard out: the
// empty first part is not taken for the answer.
func TestUnversionedPartsAreWaitedFor(t *testing.T) {
	t.Parallel()
	m, ws := fakeManager(t, "parts", 20*time.Second)
	got := m.Changed(context.Background(), []Change{{Path: filepath.Join(ws, "a.go"), After: []byte("package a\n")}})
	if want := "a.go:1:1 error fake: bad (second part)"; !strings.Contains(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// A server that offers textDocument/diagnostic is asked, not waited for.
// CONTRACT.md §6.13: post-edit diagnostics use a pull answer and list the new problem in the exact 'LSP (<server>):
// <n> new error in <path> after this change:' text.
func TestPullDiagnostics(t *testing.T) {
	t.Parallel()
	m, ws := fakeManager(t, "pull", 20*time.Second)
	got := m.Changed(context.Background(), []Change{{Path: filepath.Join(ws, "a.go"), After: []byte("package a\n")}})
	if want := "LSP (fake): 1 new error in a.go after this change:\na.go:1:9 error fake: pulled"; got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}
