package git

import (
	"context"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// maxScapegoats is how many parents of a merge git considers.
const maxScapegoats = 16

// blameOrigin is a file as it was in one commit; lines are blamed on it
// until they can be passed to a parent.
type blameOrigin struct {
	commit   *object.Commit
	path     string
	blob     plumbing.Hash
	mode     uint32
	lines    []string // loaded on first use
	pending  []*blameLine
	previous *blameOrigin // the parent version blame was passed to first
	guilty   bool
}

// blameLine is one line of the final file and where it is blamed now.
type blameLine struct {
	final, orig int // 0-based line numbers in the final file and in suspect
	suspect     *blameOrigin
}

// blamer runs git's blame algorithm over go-git objects: newest commit
// first, each version passes its lines to its parents through the same
// diff git uses (whole files when unchanged, renames followed), and what is
// left is the commit's own work. A root commit is a boundary.
type blamer struct {
	rp      *repo
	origins map[plumbing.Hash][]*blameOrigin
	queue   commitQueue
}

func (rp *repo) blame(ctx context.Context, r *request) (string, error) {
	h, err := rp.resolve(r.rev)
	if err != nil {
		return "", rp.revFailure(err, r)
	}
	c, err := rp.peelCommit(h)
	if err != nil {
		return "", rp.revFailure(err, r)
	}
	target := joinPath(rp.prefix, r.pathspec)
	tree, err := c.Tree()
	if err != nil {
		return "", failf("fatal: " + err.Error())
	}
	entry, err := tree.FindEntry(target)
	if err != nil || entry.Mode == modeDir {
		return "", failf(fmt.Sprintf("fatal: no such path %s in %s", r.pathspec, r.rev))
	}
	b := &blamer{rp: rp, origins: map[plumbing.Hash][]*blameOrigin{}}
	final := b.origin(c, target, entry.Hash, uint32(entry.Mode))
	if final.load(rp) != nil {
		return "", failf(fmt.Sprintf("fatal: cannot read blob %s", entry.Hash))
	}
	n := len(final.lines)
	if r.startLine > n {
		return "", failf(fmt.Sprintf("fatal: file %s has only %d lines", r.pathspec, n))
	}
	end := min(n, r.startLine+r.maxLines-1)
	lines := make([]*blameLine, 0, end-r.startLine+1)
	for i := r.startLine - 1; i < end; i++ {
		lines = append(lines, &blameLine{final: i, orig: i, suspect: final})
	}
	b.give(final, lines)
	if err := b.run(ctx); err != nil {
		return "", err
	}
	out := blameOutput{rp: rp, final: final, lines: lines}
	if r.porcelain {
		return out.porcelain(), nil
	}
	return out.human(), nil
}

// origin returns the one origin for (commit, path).
func (b *blamer) origin(c *object.Commit, path string, blob plumbing.Hash, mode uint32) *blameOrigin {
	for _, o := range b.origins[c.Hash] {
		if o.path == path {
			return o
		}
	}
	o := &blameOrigin{commit: c, path: path, blob: blob, mode: mode}
	b.origins[c.Hash] = append(b.origins[c.Hash], o)
	return o
}

func (o *blameOrigin) load(rp *repo) error {
	if o.lines != nil {
		return nil
	}
	data, err := rp.readBlob(o.blob)
	if err != nil {
		return err
	}
	o.lines = splitLines(string(data))
	if o.lines == nil {
		o.lines = []string{}
	}
	return nil
}

// give hands lines to an origin, queueing its commit when it had none.
func (b *blamer) give(o *blameOrigin, lines []*blameLine) {
	if len(lines) == 0 {
		return
	}
	if len(o.pending) == 0 {
		b.queue.push(o.commit)
	}
	for _, l := range lines {
		l.suspect = o
	}
	o.pending = append(o.pending, lines...)
}

func (b *blamer) run(ctx context.Context) error {
	for b.queue.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := b.queue.pop()
		for _, o := range b.origins[c.Hash] {
			if len(o.pending) == 0 {
				continue
			}
			if err := b.pass(o); err != nil {
				return err
			}
			if len(o.pending) > 0 {
				o.guilty = true
				o.pending = nil
			}
		}
	}
	return nil
}

// pass gives o's lines to the parents that had them unchanged.
func (b *blamer) pass(o *blameOrigin) error {
	parents, err := b.parentCommits(o.commit)
	if err != nil {
		return err
	}
	scapegoats := make([]*blameOrigin, len(parents))
	for round := 0; round < 2; round++ {
		for i, p := range parents {
			if scapegoats[i] != nil {
				continue
			}
			po, err := b.findOrigin(p, o, round == 1)
			if err != nil || po == nil {
				continue
			}
			if po.blob == o.blob {
				b.give(po, b.takeAll(o))
				return nil
			}
			dup := false
			for _, s := range scapegoats[:i] {
				dup = dup || (s != nil && s.blob == po.blob)
			}
			if !dup {
				scapegoats[i] = po
			}
		}
	}
	for _, po := range scapegoats {
		if po == nil {
			continue
		}
		if o.previous == nil {
			o.previous = po
		}
		if err := b.passToParent(o, po); err != nil {
			return err
		}
		if len(o.pending) == 0 {
			return nil
		}
	}
	return nil
}

func (b *blamer) takeAll(o *blameOrigin) []*blameLine {
	lines := o.pending
	o.pending = nil
	return lines
}

func (b *blamer) parentCommits(c *object.Commit) ([]*object.Commit, error) {
	var out []*object.Commit
	for i, h := range c.ParentHashes {
		if i == maxScapegoats {
			break
		}
		p, err := b.rp.git.CommitObject(h)
		if err != nil {
			return nil, failf(fmt.Sprintf("fatal: could not read commit %s", h))
		}
		out = append(out, p)
	}
	return out, nil
}

// findOrigin is the parent's version of o's file: the same path, or in the
// rename round the source of a rename that produced o's path.
func (b *blamer) findOrigin(p *object.Commit, o *blameOrigin, renames bool) (*blameOrigin, error) {
	ptree, err := p.Tree()
	if err != nil {
		return nil, err
	}
	if !renames {
		e, err := ptree.FindEntry(o.path)
		if err != nil || e.Mode == modeDir || objectType(uint32(e.Mode)) != objectType(o.mode) {
			return nil, nil
		}
		return b.origin(p, o.path, e.Hash, uint32(e.Mode)), nil
	}
	tree, err := o.commit.Tree()
	if err != nil {
		return nil, err
	}
	var changes []fileChange
	if err := b.rp.diffTrees(ptree, tree, "", pathSpec{all: true}, &changes); err != nil {
		return nil, err
	}
	var deleted []renameSide
	for _, c := range changes {
		if c.status == 'D' {
			deleted = append(deleted, c.from)
		}
	}
	dst := []renameSide{{path: o.path, hash: o.blob, mode: o.mode}}
	if pairs := b.rp.detectRenames(deleted, dst); len(pairs) > 0 {
		return b.origin(p, pairs[0].from.path, pairs[0].from.hash, pairs[0].from.mode), nil
	}
	return nil, nil
}

// passToParent moves the lines of o that the diff from po leaves unchanged
// to po, at their line numbers there.
func (b *blamer) passToParent(o, po *blameOrigin) error {
	if err := o.load(b.rp); err != nil {
		return err
	}
	if err := po.load(b.rp); err != nil {
		return err
	}
	toParent := make([]int, len(o.lines))
	for i := range toParent {
		toParent[i] = -1
	}
	ia, ib := 0, 0
	for _, ch := range diffLines(po.lines, o.lines) {
		for ; ib < ch.i2; ia, ib = ia+1, ib+1 {
			toParent[ib] = ia
		}
		ia, ib = ch.i1+ch.chg1, ch.i2+ch.chg2
	}
	for ; ib < len(o.lines); ia, ib = ia+1, ib+1 {
		toParent[ib] = ia
	}
	var moved, kept []*blameLine
	for _, l := range o.pending {
		if pl := toParent[l.orig]; pl >= 0 {
			l.orig = pl
			moved = append(moved, l)
		} else {
			kept = append(kept, l)
		}
	}
	o.pending = kept
	b.give(po, moved)
	return nil
}

// groups splits the blamed lines into runs git prints together: adjacent
// final lines with the same suspect and consecutive suspect lines.
func groups(lines []*blameLine) [][]*blameLine {
	sorted := append([]*blameLine(nil), lines...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].final < sorted[j].final })
	var out [][]*blameLine
	for i, l := range sorted {
		if i > 0 {
			prev := sorted[i-1]
			if prev.suspect == l.suspect && prev.orig+1 == l.orig && prev.final+1 == l.final {
				out[len(out)-1] = append(out[len(out)-1], l)
				continue
			}
		}
		out = append(out, []*blameLine{l})
	}
	return out
}
