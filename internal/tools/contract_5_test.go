package tools_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// escapeOf is the path a PathEscape carries, or "" when err is none.
func escapeOf(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	te := tools.AsError(err)
	if te.Kind != tools.KindPathEscape {
		t.Fatalf("%v: want a path escape", err)
	}
	return te.Path
}

// CONTRACT.md §5: a refused path is a PathEscape with the canonical candidate — the path its links lead to (the deepest
// existing ancestor's for a path that does not exist), not the path as the model spelled it.
func TestContract5EscapeNamesTheCanonicalCandidate(t *testing.T) {
	t.Parallel()
	ws, outside := tools.Canonical(t.TempDir()), tools.Canonical(t.TempDir())
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	tc := &tools.Context{Workspace: ws}
	for raw, want := range map[string]string{
		"out":                       outside,
		"out/new/file.txt":          filepath.Join(outside, "new", "file.txt"),
		"../x":                      filepath.Join(filepath.Dir(ws), "x"),
		"sub/../../x":               filepath.Join(filepath.Dir(ws), "x"),
		outside + "/a/../b":         filepath.Join(outside, "b"),
		"/proc/self/root" + outside: outside, // /proc's magic links are resolved like any link
	} {
		got, err := tc.ResolvePath(raw)
		if p := escapeOf(t, err); p != want {
			t.Errorf("ResolvePath(%q) = %q, escape %q; want an escape naming %q", raw, got, p, want)
		}
	}
}

// CONTRACT.md §5: the result is inside the canonical workspace whatever spelling reaches it: through a link that
// names the workspace, through /proc's view of the root, with a trailing slash; always in its canonical form.
func TestContract5SpellingsOfTheWorkspaceResolveToIt(t *testing.T) {
	t.Parallel()
	ws := tools.Canonical(t.TempDir())
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(ws, alias); err != nil {
		t.Fatal(err)
	}
	tc := &tools.Context{Workspace: ws}
	for raw, want := range map[string]string{
		alias + "/sub/f.txt":             filepath.Join(ws, "sub", "f.txt"),
		alias:                            ws,
		"/proc/self/root" + ws + "/sub/": filepath.Join(ws, "sub"),
		"sub/":                           filepath.Join(ws, "sub"),
		"./sub//f.txt":                   filepath.Join(ws, "sub", "f.txt"),
	} {
		if got, err := tc.ResolvePath(raw); err != nil || got != want {
			t.Errorf("ResolvePath(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
}

// CONTRACT.md §5: a link that leads nowhere yet is resolved too: the path it names is where a create through it
// would land, so a dangling link (or one further down a missing path) that points out of the workspace is an
// escape, and one that points inside resolves to its target.
func TestContract5DanglingLinksAreResolved(t *testing.T) {
	t.Parallel()
	ws, outside := tools.Canonical(t.TempDir()), tools.Canonical(t.TempDir())
	for link, target := range map[string]string{
		"to-file":  filepath.Join(outside, "created.txt"),
		"to-dir":   filepath.Join(outside, "newdir"),
		"relative": "../" + filepath.Base(outside) + "/rel.txt",
		"chain":    "to-dir",
		"inside":   "sub/later.txt",
		"loop":     "loop",
	} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	tc := &tools.Context{Workspace: ws}
	for raw, want := range map[string]string{
		"to-file":       filepath.Join(outside, "created.txt"),
		"to-dir/a/b.go": filepath.Join(outside, "newdir", "a", "b.go"),
		"relative":      filepath.Join(outside, "rel.txt"),
		"chain/x":       filepath.Join(outside, "newdir", "x"),
	} {
		got, err := tc.ResolvePath(raw)
		if p := escapeOf(t, err); p != want {
			t.Errorf("ResolvePath(%q) = %q, escape %q; want an escape naming %q", raw, got, p, want)
		}
	}
	if got, err := tc.ResolvePath("inside"); err != nil || got != filepath.Join(ws, "sub", "later.txt") {
		t.Errorf("a dangling link inside: %q, %v", got, err)
	}
	// A loop resolves to nothing; it stays the link, which the confined open then refuses.
	if got, err := tc.ResolvePath("loop"); err != nil || got != filepath.Join(ws, "loop") {
		t.Errorf("a link loop: %q, %v", got, err)
	}
}
