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

// npmManager is a manager whose only server is the built-in named name,
// its program the npm-installed bin (found by a LookPath that knows only
// it, as the session's binpath would find it on PATH).
func npmManager(t *testing.T, name, bin string, ws string) *Manager {
	t.Helper()
	path := e2e.LSPServer(t, bin)
	var srv Server
	for _, b := range Builtins() {
		if b.Name == name {
			srv = b
		}
	}
	look := func(cmd string) (string, error) {
		if cmd == srv.Command {
			return path, nil
		}
		return exec.LookPath(cmd)
	}
	m := New(Options{Config: Config{Enabled: true, Wait: 60 * time.Second, Servers: []Server{srv}}, Workspace: ws, LookPath: look})
	t.Cleanup(m.Close)
	return m
}

func tempWorkspace(t *testing.T, files map[string]string) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func TestPyrightReportsTheErrorAnEditIntroduces(t *testing.T) {
	t.Parallel()
	const ok = "def double(n: int) -> int:\n    return 2 * n\n\n\nx: int = double(1)\n"
	ws := tempWorkspace(t, map[string]string{"a.py": ok, "pyrightconfig.json": "{}\n"})
	m := npmManager(t, "pyright", "pyright-langserver", ws)
	path := filepath.Join(ws, "a.py")
	broken := strings.Replace(ok, "double(1)", `double("one")`, 1)
	got := m.Changed(context.Background(), []Change{{Path: path, Before: []byte(ok), After: []byte(broken)}})
	if !strings.Contains(got, "LSP (pyright): 1 new error in a.py") || !strings.Contains(got, "a.py:5:17 error Pyright: ") {
		t.Fatalf("the broken edit reported:\n%s", got)
	}
	if got := m.Changed(context.Background(), []Change{{Path: path, Before: []byte(broken), After: []byte(ok)}}); got != "" {
		t.Fatalf("the fix reported:\n%s", got)
	}
}

// typescript-language-server runs the TypeScript installed beside it: a
// workspace's own node_modules/typescript is never loaded.
// README.md "Language servers": typescript-language-server uses a TypeScript beside it, never the workspace's node_modules/typescript.
func TestTypeScriptServerUsesItsOwnTypeScript(t *testing.T) {
	t.Parallel()
	const ok = "export function double(n: number): number {\n  return 2 * n;\n}\n"
	ws := tempWorkspace(t, map[string]string{"a.ts": ok, "tsconfig.json": `{"compilerOptions":{"strict":true}}` + "\n"})
	planted := filepath.Join(ws, "node_modules", "typescript")
	if err := os.MkdirAll(filepath.Join(planted, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(ws, "planted-ran")
	run := "require('fs').writeFileSync(" + jsString(marker) + ", 'ran');\n"
	for name, text := range map[string]string{"package.json": `{"name":"typescript","version":"5.9.3"}` + "\n",
		"lib/tsserver.js": run, "lib/typescript.js": run} {
		if err := os.WriteFile(filepath.Join(planted, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := npmManager(t, "typescript-language-server", "typescript-language-server", ws)
	path := filepath.Join(ws, "a.ts")
	broken := strings.Replace(ok, "return 2 * n;", `return "two";`, 1)
	got := m.Changed(context.Background(), []Change{{Path: path, Before: []byte(ok), After: []byte(broken)}})
	if !strings.Contains(got, "LSP (typescript-language-server): 1 new error in a.ts") || !strings.Contains(got, "a.ts:2:3 error typescript: ") {
		t.Fatalf("the broken edit reported:\n%s", got)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the workspace's node_modules/typescript ran")
	}
}

func jsString(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
