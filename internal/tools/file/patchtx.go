package file

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/codewhale/codewhale/internal/gitquote"
	"github.com/codewhale/codewhale/internal/tools"
)

// done is a change already on disk, with the directories created for it.
type done struct {
	pd   *pending // nil when only directories were created (the write failed)
	dirs []string
}

// commit writes every planned change atomically, in order. If one fails,
// the ones already made are undone in reverse — old text, mode and mtime
// restored, created files and directories removed — so a failed patch leaves
// the files as they were.
func (t *Tool) commit(p *plan) error {
	var made []done
	for _, pd := range p.changed() {
		var dirs []string
		var err error
		verb := "write"
		if pd.after != nil {
			if dirs, err = p.fs.MkdirAll(filepath.Dir(pd.abs)); err == nil {
				err = t.fs.writeAtomic(p.fs, pd.abs, []byte(*pd.after), pd.finalMode())
			}
		} else {
			verb = "delete"
			err = t.fs.remove(p.fs, pd.abs)
		}
		if err != nil {
			made = append(made, done{dirs: dirs})
			msg := "Failed to " + verb + " " + pd.abs + ": " + unwrapPath(err).Error()
			if rerr := t.rollback(p.fs, made); rerr != nil {
				return tools.ExecutionFailed("%s; rollback also failed: %v", msg, rerr)
			}
			return tools.ExecutionFailed("%s. The patch was rolled back; no file was changed.", msg)
		}
		made = append(made, done{pd: pd, dirs: dirs})
	}
	return nil
}

// rollback undoes made in reverse order and reports what it could not undo.
func (t *Tool) rollback(b *pinned, made []done) error {
	var failures []string
	for i := len(made) - 1; i >= 0; i-- {
		d := made[i]
		if pd := d.pd; pd != nil {
			if pd.link {
				if err := b.Symlink(string(pd.before.data), pd.abs); err != nil {
					failures = append(failures, "restore link "+pd.abs+": "+unwrapPath(err).Error())
				}
			} else if pd.before.fi != nil {
				if err := t.fs.writeAtomic(b, pd.abs, pd.before.data, keptMode(pd.before.fi)); err != nil {
					failures = append(failures, "restore "+pd.abs+": "+unwrapPath(err).Error())
				} else {
					// Restore the mtime too, so read snapshots taken before the
					// patch still hold.
					mt := pd.before.fi.ModTime()
					_ = b.Chtimes(pd.abs, mt, mt)
				}
			} else if err := t.fs.remove(b, pd.abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
				failures = append(failures, "remove created "+pd.abs+": "+unwrapPath(err).Error())
			}
		}
		for k := len(d.dirs) - 1; k >= 0; k-- {
			if err := b.RemoveDir(d.dirs[k]); err != nil && !errors.Is(err, fs.ErrNotExist) {
				failures = append(failures, "remove created directory "+d.dirs[k]+": "+unwrapPath(err).Error())
			}
		}
	}
	if len(failures) > 0 {
		return errors.New(strings.Join(failures, "; "))
	}
	return nil
}

// mutation describes the applied plan for file.mutation metadata: outcomes
// per file, renames (the patch's own, then a deleted file whose exact text a
// created file holds) and the workspace-relative diff.
func (p *plan) mutation() Mutation {
	var m Mutation
	paired := map[*pending]bool{}
	addRename := func(del, cr *pending) {
		paired[del], paired[cr] = true, true
		m.Renames = append(m.Renames, Rename{From: del.display, To: cr.display})
		from, to := p.tc.Rel(del.abs), p.tc.Rel(cr.abs)
		before, after := string(del.before.data), *cr.after
		sim := "100%"
		if before != after {
			sim = "<100%"
		}
		m.Diff += "diff --git " + diffLabel("a/", from) + " " + diffLabel("b/", to) + "\nsimilarity index " + sim +
			"\nrename from " + gitquote.Name(from, false, false) + "\nrename to " + gitquote.Name(to, false, false) + "\n" +
			udiff.Unified(headerLabel("a/", from), headerLabel("b/", to), before, after)
	}
	for _, mv := range p.moves {
		if mv.from.after == nil && mv.to.after != nil && !paired[mv.from] && !paired[mv.to] {
			addRename(mv.from, mv.to)
		}
	}
	for _, del := range p.list() {
		if paired[del] || del.after != nil || del.before.fi == nil || len(del.before.data) == 0 {
			continue
		}
		for _, cr := range p.list() {
			if !paired[cr] && cr.before.fi == nil && cr.after != nil && *cr.after == string(del.before.data) {
				addRename(del, cr)
				break
			}
		}
	}
	for _, pd := range p.list() {
		if paired[pd] || (pd.before.fi == nil && pd.after == nil) {
			continue
		}
		outcome, before, after := "updated", string(pd.before.data), ""
		switch {
		case pd.before.fi == nil:
			outcome = "created"
		case pd.after == nil:
			outcome = "deleted"
		}
		if pd.after != nil {
			after = *pd.after
		}
		m.Files = append(m.Files, MutationFile{Path: pd.display, Outcome: outcome})
		rel := p.tc.Rel(pd.abs)
		if d := fileDiff(rel, before, after, outcome == "created", outcome == "deleted"); d != "" {
			m.Diff += "diff --git a/" + rel + " b/" + rel + "\n" + d
		}
	}
	return m
}

func (p *plan) list() []*pending {
	out := make([]*pending, len(p.order))
	for i, abs := range p.order {
		out[i] = p.byAbs[abs]
	}
	return out
}
