package shellpolicy

import (
	"path"
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
