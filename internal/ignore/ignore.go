// Package ignore decides which paths ignore files exclude. It is the one
// definition used by the File tool's walks (ripgrep's set of files) and the
// Git tool's untracked scan (git's set).
//
// The sources, highest precedence first, are those of ripgrep's ignore
// crate: .rgignore, then .ignore (both only with Options.Dot), then
// .gitignore, then the repository's info/exclude, then the global excludes
// file (core.excludesFile, else $XDG_CONFIG_HOME/git/ignore). For each
// source the deepest directory whose file has a matching rule decides; git
// sources stop at the top of the repository a directory belongs to, so a
// nested repository does not inherit its parent's .gitignore. For git's own
// set (no Dot) this is exactly git's order: deeper .gitignore over shallower,
// then info/exclude, then core.excludesFile.
//
// Patterns are matched by our own gitignore(5) matcher (pattern.go): go-git's
// matcher, used before, has no "[!...]" classes, no "\!"/"\#" escapes and
// does not backtrack over "**/", so it disagreed with git.
package ignore

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Options choose the sources.
type Options struct {
	// Dot adds ripgrep's .ignore and .rgignore files to git's sources.
	Dot bool
}

// Source names the files a directory may hold, in precedence order.
const (
	srcRgignore = iota
	srcIgnore
	srcGitignore
	srcExclude
	numSources
)

// Present says which ignore-relevant entries a directory holds; callers that
// have already listed it set the bits, so no file is opened in vain.
type Present uint8

const (
	HasGitignore Present = 1 << iota
	HasIgnore
	HasRgignore
	HasGit // a .git directory or file: the top of a repository
)

// PresentFor is the bit for a directory entry's name (0 for other names).
func PresentFor(name string) Present {
	switch name {
	case ".gitignore":
		return HasGitignore
	case ".ignore":
		return HasIgnore
	case ".rgignore":
		return HasRgignore
	case ".git":
		return HasGit
	}
	return 0
}

// Matcher answers for one tree: paths are '/'-separated and relative to its
// root.
type Matcher struct {
	root   string
	opts   Options
	global *File
}

// Dir is the rules in force in one directory: its own files and its
// parent's chain.
type Dir struct {
	parent *Dir
	rel    string
	files  [numSources]*File
	gitTop bool // holds .git: git sources above it do not apply
}

// New returns a matcher for the tree at root (absolute), with the user's
// global excludes file loaded.
func New(root string, opts Options) *Matcher {
	m := &Matcher{root: root, opts: opts}
	if p := GlobalExcludesFile(root); p != "" {
		if data := ReadRegular(p); data != nil {
			m.global = Parse(data, "")
		}
	}
	return m
}

// RootDir is the absolute directory paths are relative to.
func (m *Matcher) RootDir() string { return m.root }

// Root returns the Dir of the root itself, reading its ignore files.
func (m *Matcher) Root() *Dir { return m.EnterDir(nil, "") }

// Enter returns the Dir for directory rel (a child of parent, or the root
// when parent is nil), reading the ignore files has says it holds.
func (m *Matcher) Enter(parent *Dir, rel string, has Present) *Dir {
	abs := m.abs(rel)
	d := &Dir{parent: parent, rel: rel, gitTop: has&HasGit != 0}
	read := func(src int, name string) {
		if data := ReadRegular(filepath.Join(abs, name)); data != nil {
			d.files[src] = Parse(data, rel)
		}
	}
	if m.opts.Dot && has&HasRgignore != 0 {
		read(srcRgignore, ".rgignore")
	}
	if m.opts.Dot && has&HasIgnore != 0 {
		read(srcIgnore, ".ignore")
	}
	if has&HasGitignore != 0 {
		read(srcGitignore, ".gitignore")
	}
	if d.gitTop {
		if p := excludePath(abs); p != "" {
			if data := ReadRegular(p); data != nil {
				d.files[srcExclude] = Parse(data, rel)
			}
		}
	}
	if parent != nil && !d.gitTop && d.files == [numSources]*File{} {
		return parent // nothing new here: share the parent's chain
	}
	return d
}

// EnterDir is Enter for a caller that has not listed rel: it looks for the
// ignore files itself.
func (m *Matcher) EnterDir(parent *Dir, rel string) *Dir {
	return m.Enter(parent, rel, m.present(m.abs(rel)))
}

// Ignored reports whether the entry rel (relative to the root, directly in
// or below the directory of d) is excluded by the rules in force at d. Its
// parent directories must already have been checked: a file below an
// excluded directory is never looked at, as in git and ripgrep.
func (m *Matcher) Ignored(d *Dir, rel string, isDir bool) bool {
	for src := 0; src < numSources; src++ {
		for n := d; n != nil; n = n.parent {
			if f := n.files[src]; f != nil {
				if hit, ign := f.Match(rel, isDir); hit {
					return ign
				}
			}
			if src >= srcGitignore && n.gitTop {
				break // git sources stop at the repository's top
			}
		}
	}
	if m.global != nil {
		if hit, ign := m.global.Match(rel, isDir); hit {
			return ign
		}
	}
	return false
}

// Check reports whether rel is ignored, entering its parent directories from
// the root (reading their ignore files) and checking each on the way, as
// `git check-ignore --no-index` and ripgrep's walk decide. It is for single
// paths; walks use Enter and Ignored.
func (m *Matcher) Check(rel string, isDir bool) bool {
	d := m.Root()
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		last := i == len(parts)-1
		if m.Ignored(d, p, isDir || !last) {
			return true
		}
		if !last {
			d = m.EnterDir(d, p)
		}
	}
	return false
}

// DirFor returns the Dir in force inside directory rel, entering each
// ancestor from the root, and whether rel or an ancestor is itself ignored.
func (m *Matcher) DirFor(rel string) (*Dir, bool) {
	d := m.Root()
	if rel == "" {
		return d, false
	}
	parts := strings.Split(rel, "/")
	ignored := false
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		ignored = ignored || m.Ignored(d, p, true)
		d = m.EnterDir(d, p)
	}
	return d, ignored
}

// MaxFile bounds what is read of one ignore file or of any file git's
// configuration names.
const MaxFile = 16 << 20

// ReadRegular reads a file git reads by convention or because its
// configuration names it (.gitignore, core.excludesFile,
// core.attributesFile) only if it is a regular file (checked on the open
// descriptor), and at most MaxFile bytes: the repository may be planted,
// and a FIFO (opening one blocks) or /dev/zero named there must not hang
// or flood a walk. nil when it cannot, as for a missing file.
func ReadRegular(p string) []byte {
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return nil // before opening: opening a FIFO blocks
	}
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFile))
	if err != nil {
		return nil
	}
	return b
}

func (m *Matcher) abs(rel string) string {
	if rel == "" {
		return m.root
	}
	return filepath.Join(m.root, filepath.FromSlash(rel))
}

// present looks for the ignore-relevant entries of dir with one Lstat each.
func (m *Matcher) present(dir string) Present {
	var has Present
	for _, name := range []string{".gitignore", ".ignore", ".rgignore", ".git"} {
		if name != ".gitignore" && name != ".git" && !m.opts.Dot {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			has |= PresentFor(name)
		}
	}
	return has
}
