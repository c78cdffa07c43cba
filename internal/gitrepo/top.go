package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
)

// IsTop reports whether dir is the top of a worktree (of a repository, a
// submodule or a linked worktree): it holds a .git entry, which is where
// git's discovery stops for the callers that need only the directory (Open
// reads the entry as well). Top and every such caller ask it.
func IsTop(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// Top is the top of the worktree dir lies in, found as git's discovery finds
// it: the nearest of dir and its parents that IsTop. When ceiling is not ""
// and dir is ceiling or beneath it, the walk looks no higher than ceiling
// (as GIT_CEILING_DIRECTORIES does, though ceiling itself is checked). It
// returns "" when there is none. dir and ceiling are clean absolute paths.
func Top(dir, ceiling string) string {
	inside := ceiling != "" && (dir == ceiling || strings.HasPrefix(dir, ceiling+string(filepath.Separator)))
	for d := dir; ; d = filepath.Dir(d) {
		if IsTop(d) {
			return d
		}
		if (inside && d == ceiling) || filepath.Dir(d) == d {
			return ""
		}
	}
}
