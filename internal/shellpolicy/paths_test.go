package shellpolicy

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// absPath's one-allocation join must agree with path.Join for every shape
// of directory and argument.
func TestAbsPathAgreesWithPathJoin(t *testing.T) {
	t.Parallel()
	dirs := []string{"", "/", "/w", "/w/", "/w/./x", "/w/../x", "//w", "w", "w/x", ".", ".."}
	args := []string{"", "a", "a/b", "a/", "./a", "../a", "a/./b", "a/../b", "a//b", ".", "..", "/abs", "/abs/../x",
		"...", ".a", "a.", "~", "-", "*.go"}
	for _, d := range dirs {
		for _, s := range args {
			want := path.Clean(s)
			if !path.IsAbs(s) && d != "" {
				want = path.Clean(path.Join(d, s))
			}
			if got := (&classifier{cwd: d}).absPath(s); got != want {
				t.Errorf("absPath(%q) in %q = %q, want %q", s, d, got, want)
			}
		}
	}
}

// An argument that is a symlink is checked as its target too.
func TestSymlinkArgumentsAreCheckedAsTheirTargets(t *testing.T) {
	t.Parallel()
	env := testEnv()
	env.Workspace = t.TempDir()
	if err := os.WriteFile(filepath.Join(env.Workspace, ".env"), []byte("X=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".env", filepath.Join(env.Workspace, "notes")); err != nil {
		t.Fatal(err)
	}
	v := env.Classify("cat notes", "")
	if v.Class != Explicit || !strings.Contains(v.Reason(), "touches a secret") {
		t.Fatalf("cat of a link to .env: %v %v", v.Class, v.Reasons)
	}
	if v := env.Classify("cat README", ""); v.Class != ReadOnly {
		t.Fatalf("cat of a missing plain name: %v %v", v.Class, v.Reasons)
	}
}
