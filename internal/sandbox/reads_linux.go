package sandbox

import (
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// grants resolves the allow-list against the filesystem as it is now: the
// directories and files to grant for reading. A root inside an unreadable
// path is granted (a narrower grant: an interpreter installed under
// ~/.pyenv); a root that holds one is carved around it.
func (r *Reads) grants() (dirs, files []string) {
	var hidden []string
	for _, u := range r.Unreadable {
		if c, ok := canonical(u); ok && !contains(hidden, c) {
			hidden = append(hidden, c)
		}
	}
	var roots []string
	for _, x := range r.Roots {
		if c, ok := canonical(x); ok && !contains(roots, c) {
			roots = append(roots, c)
		}
	}
	// Nested roots are carved on their own: one inside an unreadable
	// path beneath another root is still granted.
	budget := maxCarveEntries
	for _, root := range roots {
		d, f := carve(root, hidden, &budget)
		dirs, files = append(dirs, d...), append(files, f...)
	}
	return dirs, files
}

// readRules are the Landlock rules for p's reads: everything, or the
// allow-list's grants. Entries carving listed may be gone by the time
// their rule is added: those need no rule.
func readRules(p Policy) []landlock.Rule {
	if p.Reads == nil {
		return []landlock.Rule{landlock.RODirs("/")}
	}
	dirs, files := p.Reads.grants()
	var rules []landlock.Rule
	if len(dirs) > 0 {
		rules = append(rules, landlock.RODirs(dirs...).IgnoreIfMissing())
	}
	if len(files) > 0 {
		rules = append(rules, landlock.ROFiles(files...).IgnoreIfMissing())
	}
	return rules
}

// bwrapReads are bubblewrap's arguments for p's reads: the whole file
// system bound read-only, or the allow-list's grants bound one by one, and
// the roots that are links (/bin -> usr/bin on a merged /usr) made again as
// links, since a grant names the resolved path.
func bwrapReads(p Policy) []string {
	if p.Reads == nil {
		return []string{"--ro-bind", "/", "/"}
	}
	dirs, files := p.Reads.grants()
	var args []string
	for _, g := range append(dirs, files...) {
		args = append(args, "--ro-bind", g, g)
	}
	for _, r := range p.Reads.Roots {
		if fi, err := os.Lstat(r); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if target, err := os.Readlink(r); err == nil {
				args = append(args, "--symlink", target, r)
			}
		}
	}
	return args
}
