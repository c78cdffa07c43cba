package lsptool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/tools"
)

// CONTRACT.md §6.13: the actions against real gopls answer one <path>:<line>:<col> line per place.
func TestActionsOnARealPackage(t *testing.T) {
	t.Parallel()
	e := newGoplsEnv(t)
	before, _ := os.ReadFile(filepath.Join(e.ws, "list.go"))
	cases := []struct {
		in   map[string]any
		want []string
	}{
		{map[string]any{"action": "diagnostics", "path": "list.go"}, []string{"gopls reports no errors or warnings in list.go."}},
		{map[string]any{"action": "hover", "path": "list.go", "line": 15, "symbol": "Element"},
			[]string{"type Element struct", "Element is an element of a linked list."}},
		{map[string]any{"action": "definition", "path": "list.go", "line": 95, "symbol": "next"},
			[]string{"1 definition of the symbol at list.go:95:9:\nlist.go:21:2: next, prev *Element"}},
		{map[string]any{"action": "symbols", "path": "list.go"},
			[]string{"list.go:15:6 struct Element\n", "list.go:31:19 method (*Element).Next\n", "list.go:21:2 field next (in Element)\n", "list.go:48:6 struct List"}},
		{map[string]any{"action": "symbols", "path": "list.go", "query": "PushBackList"},
			[]string{"in the workspace matching \"PushBackList\":", "list.go:221:16 method List.PushBackList"}},
		{map[string]any{"action": "rename_preview", "path": "list.go", "line": 48, "symbol": "List", "new_name": "Chain"},
			[]string{"Renaming to \"Chain\" would change 2 files (nothing was changed;", "--- a/list.go\n+++ b/list.go\n",
				"-type List struct {", "+type Chain struct {"}},
		{map[string]any{"action": "references", "path": "list.go", "line": 48, "symbol": "List", "max_results": 2},
			[]string{"(the first 2; max_results lists up to 200):"}},
	}
	for _, c := range cases {
		res := e.call(t, c.in)
		for _, w := range c.want {
			if !res.Success || !strings.Contains(res.Content, w) {
				t.Errorf("%v: success=%v, content:\n%s\nwant it to contain %q", c.in, res.Success, res.Content, w)
			}
		}
	}
	if after, _ := os.ReadFile(filepath.Join(e.ws, "list.go")); string(after) != string(before) {
		t.Fatal("rename_preview changed list.go")
	}
}

// A path the model names outside the workspace is refused before any
// server hears of it, as File refuses it; so is a secret, and a file no
// server takes gets a failed result saying so.
// CONTRACT.md §6.13: a path outside the workspace is PathEscape, a secret is refused before any server hears of it, a
// file no server takes is the exact failed result.
func TestPathsGoThroughTheFileBoundary(t *testing.T) {
	t.Parallel()
	e := newGoplsEnv(t)
	outside := filepath.Join(t.TempDir(), "x.go")
	if err := os.WriteFile(outside, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.ws, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.ws, ".env"), []byte("TOKEN=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		outside:      "Path escapes workspace: " + outside,
		"../x.go":    "Path escapes workspace: ",
		"link.go":    "Path escapes workspace: " + outside,
		".env":       "it is not sent to a language server",
		"README.txt": "",
	} {
		_, err := tools.Execute(t.Context(), e.tool, e.tc, []byte(`{"action":"symbols","path":"`+path+`"}`))
		if want == "" {
			continue
		}
		if err == nil || !strings.Contains(tools.AsError(err).Render(Name), want) {
			t.Errorf("%s: got %v, want %q", path, err, want)
		}
	}
	if err := os.WriteFile(filepath.Join(e.ws, "notes.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := e.call(t, map[string]any{"action": "symbols", "path": "notes.txt"})
	if res.Success || !strings.HasPrefix(res.Content, "lsp: no language server takes notes.txt here") {
		t.Fatalf("a file no server takes: %+v", res)
	}
	if err := os.WriteFile(filepath.Join(e.ws, "a.c"), []byte("int x;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	builtins, _ := lsp.Merge(nil)
	none := func(name string) (string, error) { return "", &exec.Error{Name: name, Err: exec.ErrNotFound} }
	bare := New(lsp.New(lsp.Options{Config: lsp.Config{Enabled: true, Servers: builtins}, Workspace: e.ws, LookPath: none}))
	raw := []byte(`{"action":"symbols","path":"a.c"}`)
	if res, err := tools.Execute(t.Context(), bare, e.tc, raw); err != nil || res.Success ||
		res.Content != "lsp: the language server for a.c is not installed: clangd (clangd not found on PATH); nothing was asked" {
		t.Fatalf("a server that is not installed: %+v %v", res, err)
	}
	if _, err := tools.Execute(t.Context(), e.tool, e.tc, []byte(`{"action":"hover","path":"list.go","line":15}`)); err == nil ||
		!strings.Contains(err.Error(), "needs the symbol's column (1-based) or its name as symbol on line 15") {
		t.Fatalf("a position without column or symbol: %v", err)
	}
}
