package git

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// patchPair is one file of patch output; the contents load on demand.
type patchPair struct {
	change           fileChange
	oldData, newData func() []byte
}

// diff renders `git diff --unified=N [--cached] [-- spec]`: the worktree
// against the index, or the index against HEAD.
func (rp *repo) diff(ctx context.Context, r *request) (string, error) {
	if err := rp.needWorktree(); err != nil {
		return "", err
	}
	idx, err := readIndex(rp.gitDir)
	if err != nil {
		return "", failf("fatal: " + err.Error())
	}
	spec := rp.spec(r)
	var pairs []patchPair
	if r.cached {
		pairs, err = rp.cachedPairs(idx, spec)
	} else {
		pairs, err = rp.worktreePairs(ctx, idx, spec)
	}
	if err != nil {
		return "", err
	}
	var b strings.Builder
	rp.renderPatch(&b, pairs, r.unified, false)
	return b.String(), nil
}

func (rp *repo) cachedPairs(idx *gitIndex, spec pathSpec) ([]patchPair, error) {
	head, err := rp.headCommit()
	if err != nil {
		return nil, err
	}
	changes, unmerged, err := rp.headIndexChanges(idx, head, spec)
	if err != nil {
		return nil, err
	}
	if len(unmerged) > 0 {
		return nil, errUnmerged
	}
	return rp.blobPairs(changes), nil
}

var errUnmerged = &failure{needsCLI: true, msg: "the diff includes unmerged paths; combined diffs of a " +
	"conflicted merge need the git binary (resolve the conflict or install git)"}

// blobPairs loads both sides of tree/index changes from the object store.
func (rp *repo) blobPairs(changes []fileChange) []patchPair {
	out := make([]patchPair, len(changes))
	for i, c := range changes {
		out[i] = patchPair{change: c,
			oldData: func() []byte { return rp.blobBytes(c.from.hash) },
			newData: func() []byte { return rp.blobBytes(c.to.hash) }}
	}
	return out
}

// worktreePairs compares stage-0 index entries with the files on disk.
func (rp *repo) worktreePairs(ctx context.Context, idx *gitIndex, spec pathSpec) ([]patchPair, error) {
	chk, err := rp.newWorktreeCheck(idx)
	if err != nil {
		return nil, failf("fatal: " + err.Error())
	}
	defer chk.st.close()
	var out []patchPair
	for i := range idx.entries {
		e := &idx.entries[i]
		if !spec.match(e.name) || e.skipWorktree || e.mode&^0o777 == modeGitlink {
			continue
		}
		if e.stage > 0 {
			return nil, errUnmerged
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		col := chk.column(e)
		if col == 0 {
			continue
		}
		from := renameSide{path: e.name, hash: e.hash, mode: e.mode}
		oldData := func() []byte { return rp.blobBytes(e.hash) }
		if col == 'D' {
			out = append(out, patchPair{change: fileChange{status: 'D', from: from}, oldData: oldData})
			continue
		}
		data, mode, err := readWorktree(filepath.Join(rp.root, filepath.FromSlash(e.name)), e.mode, chk.fileMode)
		if err != nil {
			return nil, failf(fmt.Sprintf("error: %v", err))
		}
		to := renameSide{path: e.name, hash: blobHash(data), mode: mode}
		c := modified(from, to)
		if e.intentToAdd {
			c = fileChange{status: 'A', to: to}
		}
		out = append(out, patchPair{change: c, oldData: oldData, newData: func() []byte { return data }})
	}
	return out, nil
}

// readWorktree reads a file (or a symlink's target) and the mode git would
// record for it.
func readWorktree(abs string, indexMode uint32, fileMode bool) ([]byte, uint32, error) {
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil, 0, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(abs)
		return []byte(target), modeSymlink, err
	}
	data, err := os.ReadFile(abs)
	mode := uint32(modeFile)
	switch {
	case !fileMode && indexMode&^0o777 == 0o100000:
		mode = indexMode
	case fi.Mode()&0o100 != 0:
		mode = modeExec
	}
	return data, mode, err
}

// renderPatch writes git's patch text for the pairs; a type change is shown
// as a deletion followed by an addition, as git does.
func (rp *repo) renderPatch(b *strings.Builder, pairs []patchPair, ctx int, fullQuote bool) {
	for _, p := range pairs {
		if p.change.status == 'T' {
			rp.renderFile(b, patchPair{change: fileChange{status: 'D', from: p.change.from}, oldData: p.oldData}, ctx, fullQuote)
			rp.renderFile(b, patchPair{change: fileChange{status: 'A', to: p.change.to}, newData: p.newData}, ctx, fullQuote)
			continue
		}
		rp.renderFile(b, p, ctx, fullQuote)
	}
}

func (rp *repo) renderFile(b *strings.Builder, p patchPair, ctx int, fullQuote bool) {
	c := p.change
	nameA, nameB := c.from.path, c.to.path
	switch c.status {
	case 'A':
		nameA = nameB
	case 'D':
		nameB = nameA
	}
	q := func(s string) string { return quoteName(s, fullQuote, false) }
	aOne, bTwo := q("a/"+nameA), q("b/"+nameB)
	header := "diff --git " + aOne + " " + bTwo + "\n"
	var meta string
	if c.status == 'R' {
		meta = fmt.Sprintf("similarity index %d%%\nrename from %s\nrename to %s\n", c.score*100/maxScore, q(nameA), q(nameB))
	}
	if c.from.hash != c.to.hash {
		meta += "index " + rp.abbrev(c.from.hash) + ".." + rp.abbrev(c.to.hash)
		if c.from.mode == c.to.mode {
			meta += fmt.Sprintf(" %06o", c.from.mode)
		}
		meta += "\n"
	}
	mustShow := c.status == 'R'
	lblA, lblB := aOne, bTwo
	switch {
	case c.status == 'A':
		header += fmt.Sprintf("new file mode %06o\n", c.to.mode) + meta
		lblA, mustShow = "/dev/null", true
	case c.status == 'D':
		header += fmt.Sprintf("deleted file mode %06o\n", c.from.mode) + meta
		lblB, mustShow = "/dev/null", true
	default:
		if c.from.mode != c.to.mode {
			header += fmt.Sprintf("old mode %06o\nnew mode %06o\n", c.from.mode, c.to.mode)
			mustShow = true
		}
		header += meta
	}
	var oldData, newData []byte
	if p.oldData != nil && c.status != 'A' {
		oldData = p.oldData()
	}
	if p.newData != nil && c.status != 'D' {
		newData = p.newData()
	}
	if isBinary(oldData) || isBinary(newData) {
		if string(oldData) != string(newData) {
			b.WriteString(header + "Binary files " + lblA + " and " + lblB + " differ\n")
		} else if mustShow {
			b.WriteString(header)
		}
		return
	}
	hunks := unifiedDiff(splitLines(string(oldData)), splitLines(string(newData)), ctx)
	if hunks == "" {
		if mustShow {
			b.WriteString(header)
		}
		return
	}
	b.WriteString(header + "--- " + lblA + labelTab(lblA) + "\n+++ " + lblB + labelTab(lblB) + "\n" + hunks)
}

// labelTab is the tab git appends to a ---/+++ label that contains a space.
func labelTab(l string) string {
	if strings.Contains(l, " ") {
		return "\t"
	}
	return ""
}
