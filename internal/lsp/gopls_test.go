package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// goModule writes a small module to a temporary directory and returns it
// (canonical, as the session's workspace is).
func goModule(t testing.TB, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goplsManager is a manager over the installed gopls for ws.
func goplsManager(t testing.TB, ws string, wait time.Duration) *Manager {
	t.Helper()
	bin := e2e.LSPServer(t, "gopls")
	if _, err := exec.LookPath("go"); err != nil {
		e2e.Missing(t, "go is not on PATH (gopls runs it)")
	}
	srv := Builtins()[0]
	srv.Command, srv.Builtin = bin, false
	m := New(Options{Config: Config{Enabled: true, Wait: wait, Servers: []Server{srv}}, Workspace: ws, LookPath: exec.LookPath})
	t.Cleanup(m.Close)
	return m
}

const okMain = "package main\n\nfunc double(n int) int { return 2 * n }\n\nfunc main() { _ = double(1) }\n"

// README.md "Language servers": after an edit gopls's problems the change introduced reach the result the model reads.
func TestGoplsReportsTheErrorAnEditIntroducesAndClearsIt(t *testing.T) {
	t.Parallel()
	ws := goModule(t, map[string]string{"main.go": okMain})
	m := goplsManager(t, ws, 60*time.Second)
	path := filepath.Join(ws, "main.go")
	m.Opened(path, []byte(okMain))
	broken := strings.Replace(okMain, "return 2 * n", `return "two"`, 1)
	got := m.Changed(context.Background(), []Change{{Path: path, Before: []byte(okMain), After: []byte(broken)}})
	if !strings.Contains(got, "LSP (gopls): 1 new error in main.go") || !strings.Contains(got, "main.go:3:33 error compiler: ") {
		t.Fatalf("the broken edit reported:\n%s", got)
	}
	if got := m.Changed(context.Background(), []Change{{Path: path, Before: []byte(broken), After: []byte(okMain)}}); got != "" {
		t.Fatalf("the fix reported:\n%s", got)
	}
}
