package git

import "github.com/codewhale/codewhale/internal/ignore"

// ignorer answers "is this untracked path excluded?" for the untracked walk
// with git's sources and precedence (internal/ignore, the one matcher the
// File tool shares): a stack of the directories the walk is in.
type ignorer struct {
	m     *ignore.Matcher
	stack []*ignore.Dir
}

// newIgnorer loads the repository-wide exclude files.
func newIgnorer(rp *repo) *ignorer {
	m := ignore.New(rp.root, ignore.Options{})
	return &ignorer{m: m, stack: []*ignore.Dir{m.Root()}}
}

// push enters directory dir (repository-relative; "" is the root, already
// entered); pop returns to the mark push gave.
func (ig *ignorer) push(_, dir string) int {
	mark := len(ig.stack)
	if dir != "" {
		ig.stack = append(ig.stack, ig.m.EnterDir(ig.stack[len(ig.stack)-1], dir))
	}
	return mark
}

func (ig *ignorer) pop(mark int) { ig.stack = ig.stack[:mark] }

// excluded reports whether path (repository-relative) is ignored by the
// rules in force. Its parent directories must already have been checked:
// like git, a file below an excluded directory is never looked at.
func (ig *ignorer) excluded(path string, isDir bool) bool {
	return ig.m.Ignored(ig.stack[len(ig.stack)-1], path, isDir)
}
