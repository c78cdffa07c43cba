//go:build unix

package confine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Symlink replaces a file or a link with a new link, never a directory,
// and never makes one through a link on the way.
func TestSymlinkReplacesAFileOrLinkBeneathTheRoot(t *testing.T) {
	t.Parallel()
	root, outside := tree(t)
	r := open(t, root)
	for _, rel := range []string{"a/b.txt", "file-link", "a/new"} {
		must(t, r.Symlink("../elsewhere", rel))
		if got, err := os.Readlink(filepath.Join(root, rel)); err != nil || got != "../elsewhere" {
			t.Errorf("%s: link to %q, %v", rel, got, err)
		}
	}
	if err := r.Symlink("x", "out/canary"); !errors.Is(err, ErrSymlink) {
		t.Errorf("a link made through a link to the outside: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "canary")); string(b) != "outside" {
		t.Errorf("outside canary changed: %q", b)
	}
	if err := r.Symlink("x", "a"); err == nil {
		t.Error("a directory was replaced by a link")
	}
	entries, _ := os.ReadDir(filepath.Join(root, "a"))
	if len(entries) != 3 { // b.txt, link, new
		t.Errorf("entries left in a: %v", entries)
	}
}
