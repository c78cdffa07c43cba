package gitrepo

import (
	"os"
	"path/filepath"
	"testing"
)

// Top agrees with git rev-parse --show-toplevel from the top, from a nested
// directory, inside a linked worktree and a nested repository, and finds
// nothing outside one or above a ceiling.
func TestTopAgreesWithGit(t *testing.T) {
	t.Parallel()
	root, _ := newRepo(t)
	wt := filepath.Join(filepath.Dir(root), filepath.Base(root)+"-wt")
	git(t, root, "worktree", "add", "-q", "-b", "side", wt)
	t.Cleanup(func() { os.RemoveAll(wt) })
	inner := filepath.Join(root, "a", "inner")
	if err := os.MkdirAll(filepath.Join(inner, "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, inner, "init", "-q")
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	tests := []struct {
		name, dir, ceiling string
		git                bool // compare with git rev-parse --show-toplevel
		want               string
	}{
		{"top", root, "", true, root},
		{"nested", filepath.Join(root, "a", "b"), "", true, root},
		{"linked worktree", wt, "", true, wt},
		{"nested repository", filepath.Join(inner, "deep"), "", true, inner},
		{"outside", outside, "", false, ""},
		{"ceiling below the top", filepath.Join(root, "a", "b"), filepath.Join(root, "a"), false, ""},
		{"ceiling at the top", filepath.Join(root, "a", "b"), root, false, root},
		{"ceiling elsewhere", filepath.Join(root, "a"), outside, false, root},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Top(tt.dir, tt.ceiling)
			if got != tt.want {
				t.Errorf("Top(%s, %q) = %q, want %q", tt.dir, tt.ceiling, got, tt.want)
			}
			if tt.git {
				if top := git(t, tt.dir, "rev-parse", "--show-toplevel"); top != got {
					t.Errorf("git says %q, Top says %q", top, got)
				}
			}
			if IsTop(tt.dir) != (got == tt.dir) {
				t.Errorf("IsTop(%s) = %v, Top = %q", tt.dir, IsTop(tt.dir), got)
			}
		})
	}
}
