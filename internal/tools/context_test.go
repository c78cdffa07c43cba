package tools_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// CONTRACT.md §5: ResolvePath joins a relative path to the workspace, resolves links (the deepest existing ancestor
// for a new path) and refuses an escape with PathEscape.
func TestResolvePathBoundary(t *testing.T) {
	t.Parallel()
	root := tools.Canonical(t.TempDir())
	outside := tools.Canonical(t.TempDir())
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "inner")); err != nil {
		t.Fatal(err)
	}
	tc := &tools.Context{Workspace: root}
	ok := map[string]string{
		"":                   root,
		".":                  root,
		"sub/../sub/new.txt": filepath.Join(root, "sub", "new.txt"),
		"inner/x":            filepath.Join(root, "sub", "x"),
		root + "/sub":        filepath.Join(root, "sub"),
		"nope/deeper/file":   filepath.Join(root, "nope", "deeper", "file"),
	}
	for in, want := range ok {
		got, err := tc.ResolvePath(in)
		if err != nil || got != want {
			t.Errorf("ResolvePath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"..", "../x", "/etc/passwd", "escape", "escape/new-file", outside} {
		_, err := tc.ResolvePath(in)
		var te *tools.Error
		if !errors.As(err, &te) || te.Kind != tools.KindPathEscape {
			t.Errorf("ResolvePath(%q) = %v; want a path escape", in, err)
		}
	}
	trusted := &tools.Context{Workspace: root, TrustedRoots: []string{outside}}
	if _, err := trusted.ResolvePath("escape/x"); err != nil {
		t.Errorf("trusted root refused: %v", err)
	}
	var te *tools.Error
	if _, err := trusted.ResolvePath("/etc/passwd"); !errors.As(err, &te) || te.Kind != tools.KindPathEscape {
		t.Errorf("a path outside every trusted root: %v; want a path escape", err)
	}
}

// TestLexicalPath: joined and cleaned, never following a link; the roots
// are the workspace and the trusted ones.
func TestLexicalPath(t *testing.T) {
	t.Parallel()
	ws, other := tools.Canonical(t.TempDir()), tools.Canonical(t.TempDir())
	if err := os.Symlink(other, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	c := &tools.Context{Workspace: ws, TrustedRoots: []string{filepath.Join(other, "trusted")}}
	for _, tc := range []struct {
		raw, want, root string
		escape          bool
	}{
		{"out", filepath.Join(ws, "out"), ws, false}, // the link itself, not its target
		{"a/../b/", filepath.Join(ws, "b"), ws, false},
		{"gone/dir", filepath.Join(ws, "gone", "dir"), ws, false},
		{"../x", "", "", true},
		{filepath.Join(other, "trusted", "f"), filepath.Join(other, "trusted", "f"), filepath.Join(other, "trusted"), false},
		{filepath.Join(other, "f"), "", "", true},
	} {
		got, root, err := c.LexicalPath(tc.raw)
		if tc.escape {
			if e := tools.AsError(err); err == nil || e.Kind != tools.KindPathEscape {
				t.Errorf("%q: want an escape, got %q %v", tc.raw, got, err)
			}
			continue
		}
		if err != nil || got != tc.want || root != tc.root {
			t.Errorf("%q: got %q in %q (%v), want %q in %q", tc.raw, got, root, err, tc.want, tc.root)
		}
	}
}
