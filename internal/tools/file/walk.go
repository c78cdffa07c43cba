package file

import (
	"context"
	"io/fs"
	"path/filepath"
	"runtime"

	"github.com/codewhale/codewhale/internal/ignore"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// walkFile is one regular file found by a walk.
type walkFile struct {
	abs  string
	rel  string // relative to the walk base, '/'-separated
	name string
}

// walkSpec describes a tree walk: the base directory, the ignore rules it
// starts in, the exclude/include globs (include filters files only) and the
// default excludes (nil when the call gave its own `exclude`). Every
// directory is read through the boundary (fs); symlinks are never followed,
// .git is never entered, and neither is a directory secret reports.
type walkSpec struct {
	fs *confine.Set
	// secret reports a directory the walk must not enter (Tool.Secret);
	// visitors that read content ask it per file too.
	secret   func(abs string) bool
	base     string
	globBase string // base relative to the workspace ("" for the workspace or outside it), for globs
	ign      ignoreContext
	exclude  globSet
	include  globSet
	defaults *defaultRules
	skipped  *skipLog // folders not entered (unreadable, secret); nil records nothing
}

// walkWorkers is the number of goroutines that search files in parallel.
func walkWorkers() int { return max(2, runtime.GOMAXPROCS(0)) }

// walk visits every regular file under spec.base that the ignore rules, the
// globs and the defaults let through, on the calling goroutine, in path
// order: each directory's entries sorted by name, depth first — the order of
// `rg --sort path`, so results are the same on every run. It stops when
// visit returns false and returns ctx's error when ctx ends first.
func walk(ctx context.Context, spec walkSpec, visit func(walkFile) bool) error {
	w := &walker{ctx: ctx, spec: spec, visit: visit}
	w.dir(spec.base, "", spec.ign.dir)
	return ctx.Err()
}

type walker struct {
	ctx   context.Context
	spec  walkSpec
	visit func(walkFile) bool
}

// dir walks one directory whose parent's rules are parent; it reports
// whether the walk goes on.
func (w *walker) dir(abs, rel string, parent *ignore.Dir) bool {
	if w.ctx.Err() != nil {
		return false
	}
	entries, err := w.spec.fs.ReadDir(abs)
	if err != nil {
		w.spec.skipped.addDirError(abs, err) // skipped, and the result says so
		return true
	}
	d := parent
	if m := w.spec.ign.m; m != nil {
		var has ignore.Present
		for _, e := range entries {
			has |= ignore.PresentFor(e.Name())
		}
		if rel != "" || d == nil {
			d = m.Enter(parent, w.spec.ign.path(rel), has)
		}
	}
	for _, e := range entries {
		name, typ := e.Name(), e.Type()
		// .git is never content: a directory, or in a linked worktree or
		// submodule the file that points at one.
		if typ&fs.ModeSymlink != 0 || (!typ.IsDir() && !typ.IsRegular()) || name == ".git" {
			continue
		}
		sub := name
		if rel != "" {
			sub = rel + "/" + name
		}
		isDir := typ.IsDir()
		if !w.keep(d, sub, name, isDir) {
			continue
		}
		if isDir {
			child := filepath.Join(abs, name)
			if w.spec.secret != nil && w.spec.secret(child) {
				w.spec.skipped.addSecret()
				continue
			}
			if !w.dir(child, sub, d) {
				return false
			}
			continue
		}
		if !w.visit(walkFile{abs: filepath.Join(abs, name), rel: sub, name: name}) {
			return false
		}
	}
	return true
}

// keep applies, in order, the ignore files, the call's excludes, the
// defaults (only for what the ignore files kept, so the report names only
// what the defaults alone hid) and, for files, the includes.
func (w *walker) keep(d *ignore.Dir, sub, name string, isDir bool) bool {
	s := &w.spec
	ignRel := s.ign.path(sub)
	if s.ign.m != nil && s.ign.m.Ignored(d, ignRel, isDir) {
		return false
	}
	globRel := sub
	if s.globBase != "" {
		globRel = s.globBase + "/" + sub
	}
	if len(s.exclude) > 0 && s.exclude.match(globRel, name, isDir) {
		return false
	}
	if s.defaults.skips(ignRel, globRel, name, isDir) {
		return false
	}
	return isDir || len(s.include) == 0 || s.include.match(globRel, name, false)
}
