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
