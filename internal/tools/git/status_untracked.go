package git

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"sort"
)

// untrackedWalk lists untracked paths the way `git status` (untracked
// files "normal") does: files not in the index and not ignored; a
// directory with no tracked content collapses to "dir/" when it holds at
// least one such file (or is a nested repository).
type untrackedWalk struct {
	ctx         context.Context
	root        string
	spec        pathSpec
	tracked     map[string]bool // index paths
	trackedDirs map[string]bool // directories with tracked content
	ign         *ignorer
	out         []string
}

func (rp *repo) untracked(ctx context.Context, idx *gitIndex, spec pathSpec) ([]string, error) {
	w := &untrackedWalk{ctx: ctx, root: rp.root, spec: spec, ign: newIgnorer(rp),
		tracked: make(map[string]bool, len(idx.entries)), trackedDirs: map[string]bool{"": true}}
	for i := range idx.entries {
		name := idx.entries[i].name
		w.tracked[name] = true
		for d := path.Dir(name); d != "." && !w.trackedDirs[d]; d = path.Dir(d) {
			w.trackedDirs[d] = true
		}
	}
	if err := w.dir(""); err != nil {
		return nil, err
	}
	sort.Strings(w.out)
	return w.out, nil
}

// dir lists one directory that has tracked content (or that the pathspec
// reaches into).
func (w *untrackedWalk) dir(dir string) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(w.root, filepath.FromSlash(dir)))
	if err != nil {
		return nil
	}
	mark := w.ign.push(w.root, dir)
	defer w.ign.pop(mark)
	for _, de := range entries {
		name := de.Name()
		if name == ".git" {
			continue
		}
		p := joinPath(dir, name)
		if de.IsDir() {
			if err := w.subdir(p); err != nil {
				return err
			}
			continue
		}
		if w.tracked[p] || !(de.Type().IsRegular() || de.Type()&os.ModeSymlink != 0) {
			continue
		}
		if w.spec.match(p) && !w.ign.excluded(p, false) {
			w.out = append(w.out, p)
		}
	}
	return nil
}

// subdir decides between recursing, collapsing to "p/" and skipping.
func (w *untrackedWalk) subdir(p string) error {
	if w.tracked[p] || !w.spec.mayContain(p) || w.ign.excluded(p, true) {
		return nil // a gitlink, out of scope, or ignored
	}
	deeper := !w.spec.all && len(w.spec.path) > len(p) && w.spec.path[:len(p)+1] == p+"/"
	if !w.trackedDirs[p] && isNestedRepo(filepath.Join(w.root, filepath.FromSlash(p))) {
		// Another repository's files are never this one's untracked
		// files: git shows the repository as "p/", and nothing for a
		// pathspec inside it.
		if !deeper {
			w.out = append(w.out, p+"/")
		}
		return nil
	}
	if w.trackedDirs[p] || deeper {
		return w.dir(p)
	}
	if isNestedRepo(filepath.Join(w.root, filepath.FromSlash(p))) || w.hasUntracked(p) {
		w.out = append(w.out, p+"/")
	}
	return nil
}

// hasUntracked reports whether an untracked directory holds a file that is
// not ignored, looking through its own .gitignore files.
func (w *untrackedWalk) hasUntracked(dir string) bool {
	entries, err := os.ReadDir(filepath.Join(w.root, filepath.FromSlash(dir)))
	if err != nil {
		return false
	}
	mark := w.ign.push(w.root, dir)
	defer w.ign.pop(mark)
	for _, de := range entries {
		p := joinPath(dir, de.Name())
		switch {
		case de.IsDir():
			if de.Name() == ".git" || w.ign.excluded(p, true) {
				continue
			}
			if isNestedRepo(filepath.Join(w.root, filepath.FromSlash(p))) || w.hasUntracked(p) {
				return true
			}
		case de.Type().IsRegular() || de.Type()&os.ModeSymlink != 0:
			if !w.ign.excluded(p, false) {
				return true
			}
		}
	}
	return false
}

// isNestedRepo reports whether dir is the worktree of another repository.
func isNestedRepo(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".git", "HEAD"))
	if err == nil {
		return true
	}
	fi, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil && fi.Mode().IsRegular()
}
