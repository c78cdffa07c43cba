package git

import (
	"path"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// fileChange is one changed path between two snapshots (trees, the index
// or the worktree). from is empty for an addition, to for a deletion.
type fileChange struct {
	status   byte // 'A', 'D', 'M', 'T' or 'R'
	from, to renameSide
	score    int // rename similarity, 0..maxScore
}

// key is the path a change sorts and reports under: the new path, or the
// old one for a deletion.
func (c fileChange) key() string {
	if c.to.path != "" {
		return c.to.path
	}
	return c.from.path
}

// headIndexChanges compares HEAD's tree with the index's stage-0 entries
// (intent-to-add entries excluded), detecting renames. Paths with unmerged
// stages are returned separately as a bit set of the stages present.
func (rp *repo) headIndexChanges(idx *gitIndex, head *object.Commit, spec pathSpec) ([]fileChange, map[string]int, error) {
	headFiles := map[string]treeFile{}
	skipped := map[string]bool{}
	if head != nil {
		tree, err := head.Tree()
		if err != nil {
			return nil, nil, failf("fatal: " + err.Error())
		}
		if err := rp.collectTree(tree, "", spec, idx.tree, headFiles, skipped); err != nil {
			return nil, nil, err
		}
	}
	var out []fileChange
	unmerged := map[string]int{}
	for i := range idx.entries {
		e := &idx.entries[i]
		if !spec.match(e.name) {
			continue
		}
		if e.stage > 0 {
			unmerged[e.name] |= 1 << (e.stage - 1)
			delete(headFiles, e.name)
			continue
		}
		h, inHead := headFiles[e.name]
		delete(headFiles, e.name)
		to := renameSide{path: e.name, hash: e.hash, mode: e.mode}
		switch {
		case e.intentToAdd || (!inHead && underSkipped(skipped, e.name)):
		case !inHead:
			out = append(out, fileChange{status: 'A', to: to})
		case h.hash != e.hash || h.mode != e.mode:
			out = append(out, modified(renameSide{path: e.name, hash: h.hash, mode: h.mode}, to))
		}
	}
	for p, f := range headFiles {
		if unmerged[p] == 0 {
			out = append(out, fileChange{status: 'D', from: renameSide{path: p, hash: f.hash, mode: f.mode}})
		}
	}
	return rp.withRenames(out), unmerged, nil
}

func modified(from, to renameSide) fileChange {
	if objectType(from.mode) != objectType(to.mode) {
		return fileChange{status: 'T', from: from, to: to}
	}
	return fileChange{status: 'M', from: from, to: to}
}

func underSkipped(skipped map[string]bool, p string) bool {
	if skipped[""] {
		return true
	}
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if skipped[d] {
			return true
		}
	}
	return false
}

// withRenames pairs additions with deletions and sorts the result by path.
func (rp *repo) withRenames(changes []fileChange) []fileChange {
	var added, deleted []renameSide
	for _, c := range changes {
		switch c.status {
		case 'A':
			added = append(added, c.to)
		case 'D':
			deleted = append(deleted, c.from)
		}
	}
	pairs := rp.detectRenames(deleted, added)
	if len(pairs) > 0 {
		gone := map[string]bool{}
		for _, p := range pairs {
			gone["A"+p.to.path], gone["D"+p.from.path] = true, true
		}
		kept := changes[:0]
		for _, c := range changes {
			if !gone[string(c.status)+c.key()] {
				kept = append(kept, c)
			}
		}
		changes = kept
		for _, p := range pairs {
			changes = append(changes, fileChange{status: 'R', from: p.from, to: p.to, score: p.score})
		}
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].key() < changes[j].key() })
	return changes
}

// treeChanges compares two trees (either may be nil) below the pathspec,
// skipping identical subtrees, and detects renames.
func (rp *repo) treeChanges(a, b *object.Tree, spec pathSpec) ([]fileChange, error) {
	var out []fileChange
	if err := rp.diffTrees(a, b, "", spec, &out); err != nil {
		return nil, err
	}
	return rp.withRenames(out), nil
}

func (rp *repo) diffTrees(a, b *object.Tree, dir string, spec pathSpec, out *[]fileChange) error {
	if a != nil && b != nil && a.Hash == b.Hash {
		return nil
	}
	entries := map[string][2]*object.TreeEntry{}
	for i, t := range []*object.Tree{a, b} {
		if t == nil {
			continue
		}
		for k := range t.Entries {
			e := &t.Entries[k]
			pair := entries[e.Name]
			pair[i] = e
			entries[e.Name] = pair
		}
	}
	for _, name := range sortedKeys(entries) {
		pair := entries[name]
		p := joinPath(dir, name)
		if err := rp.diffEntry(pair[0], pair[1], p, spec, out); err != nil {
			return err
		}
	}
	return nil
}

func (rp *repo) diffEntry(ea, eb *object.TreeEntry, p string, spec pathSpec, out *[]fileChange) error {
	if !spec.mayContain(p) {
		return nil
	}
	if ea != nil && eb != nil && ea.Hash == eb.Hash && ea.Mode == eb.Mode {
		return nil
	}
	subA, subB, err := rp.subtrees(ea, eb)
	if err != nil {
		return err
	}
	if subA != nil || subB != nil {
		if err := rp.diffTrees(subA, subB, p, spec, out); err != nil {
			return err
		}
	}
	if !spec.match(p) {
		return nil
	}
	side := func(e *object.TreeEntry) (renameSide, bool) {
		if e == nil || e.Mode == modeDir {
			return renameSide{}, false
		}
		return renameSide{path: p, hash: e.Hash, mode: uint32(e.Mode)}, true
	}
	from, okA := side(ea)
	to, okB := side(eb)
	switch {
	case okA && okB:
		*out = append(*out, modified(from, to))
	case okA:
		*out = append(*out, fileChange{status: 'D', from: from})
	case okB:
		*out = append(*out, fileChange{status: 'A', to: to})
	}
	return nil
}

// subtrees loads the tree side(s) of an entry pair.
func (rp *repo) subtrees(ea, eb *object.TreeEntry) (*object.Tree, *object.Tree, error) {
	load := func(e *object.TreeEntry) (*object.Tree, error) {
		if e == nil || e.Mode != modeDir {
			return nil, nil
		}
		t, err := rp.git.TreeObject(e.Hash)
		if err != nil {
			return nil, failf("fatal: " + err.Error())
		}
		return t, nil
	}
	a, err := load(ea)
	if err != nil {
		return nil, nil, err
	}
	b, err := load(eb)
	return a, b, err
}
