package tools_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

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
