package git

import (
	"container/heap"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// branchLine is porcelain v1's "## …" header: the branch, its upstream and
// how far they have diverged.
func (rp *repo) branchLine(head *object.Commit) string {
	ref, err := rp.git.Storer.Reference(plumbing.HEAD)
	if err != nil || ref.Type() != plumbing.SymbolicReference {
		return "## HEAD (no branch)\n"
	}
	branch := strings.TrimPrefix(ref.Target().String(), "refs/heads/")
	if head == nil {
		return "## No commits yet on " + branch + "\n"
	}
	upstream := rp.upstreamRef(branch)
	if upstream == "" {
		return "## " + branch + "\n"
	}
	line := "## " + branch + "..." + rp.shortRef(upstream)
	up, err := rp.git.Storer.Reference(upstream)
	if err != nil {
		return line + " [gone]\n"
	}
	upHash := up.Hash()
	if up.Type() == plumbing.SymbolicReference {
		if r, err := rp.git.Reference(upstream, true); err == nil {
			upHash = r.Hash()
		}
	}
	ahead, behind := rp.aheadBehind(head.Hash, upHash)
	switch {
	case ahead == 0 && behind == 0:
		return line + "\n"
	case ahead == 0:
		return fmt.Sprintf("%s [behind %d]\n", line, behind)
	case behind == 0:
		return fmt.Sprintf("%s [ahead %d]\n", line, ahead)
	}
	return fmt.Sprintf("%s [ahead %d, behind %d]\n", line, ahead, behind)
}

// upstreamRef is the remote-tracking ref configured for branch
// (branch.<b>.remote and branch.<b>.merge mapped through the remote's fetch
// refspecs), or "" when none is configured.
func (rp *repo) upstreamRef(branch string) plumbing.ReferenceName {
	cfg, err := rp.git.Storer.Config()
	if err != nil {
		return ""
	}
	b, ok := cfg.Branches[branch]
	if !ok || b.Remote == "" || b.Merge == "" {
		return ""
	}
	if b.Remote == "." {
		return b.Merge
	}
	remote, ok := cfg.Remotes[b.Remote]
	if !ok {
		return ""
	}
	for _, rs := range remote.Fetch {
		if rs.Match(b.Merge) {
			return rs.Dst(b.Merge)
		}
	}
	return ""
}

// shortRef is git's shortest unambiguous name for a ref: the last of the
// lookup rules that yields it, provided no earlier rule resolves that short
// name to an existing ref.
func (rp *repo) shortRef(name plumbing.ReferenceName) string {
	rules := []string{"refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD"}
	full := name.String()
	for i := len(rules) - 1; i >= 0; i-- {
		pre, suf, _ := strings.Cut(rules[i], "%s")
		if !strings.HasPrefix(full, pre) || !strings.HasSuffix(full, suf) || len(full) <= len(pre)+len(suf) {
			continue
		}
		short := full[len(pre) : len(full)-len(suf)]
		ambiguous := false
		for j := 0; j < i && !ambiguous; j++ {
			_, err := rp.git.Storer.Reference(plumbing.ReferenceName(fmt.Sprintf(rules[j], short)))
			ambiguous = err == nil
		}
		if !ambiguous {
			return short
		}
	}
	return full
}

// aheadBehind counts the commits reachable from ours but not theirs and
// the reverse, walking both histories newest first until every commit left
// to visit is reachable from both sides and new to the walk. A commit whose
// flags grow after it was walked (a child dated before its parent: the walk
// reached the parent from one side first) is walked again, and the walk
// goes on until the other side's flag has reached every walked ancestor;
// the counts come from the final flags, as git's `rev-list --left-right
// --count` gives them.
func (rp *repo) aheadBehind(ours, theirs plumbing.Hash) (int, int) {
	const left, right, both = 1, 2, 3
	flags := map[plumbing.Hash]int{}
	missing := map[plumbing.Hash]bool{} // a shallow clone's cut parents: git does not count them
	q := &commitQueue{}
	push := func(h plumbing.Hash, f int) {
		if flags[h]|f == flags[h] {
			return
		}
		flags[h] |= f
		if c, err := rp.git.CommitObject(h); err == nil {
			q.push(c)
		} else {
			missing[h] = true
		}
	}
	push(ours, left)
	push(theirs, right)
	walked := map[plumbing.Hash]bool{}
	settled := func(h plumbing.Hash) bool { return flags[h] == both && !walked[h] }
	for q.Len() > 0 && !q.all(settled) {
		c := q.pop()
		walked[c.Hash] = true
		for _, p := range c.ParentHashes {
			push(p, flags[c.Hash])
		}
	}
	ahead, behind := 0, 0
	for h, f := range flags {
		switch {
		case missing[h]:
		case f == left:
			ahead++
		case f == right:
			behind++
		}
	}
	return ahead, behind
}

// commitQueue orders commits newest first by committer date, first in first
// out among equal dates, like git's revision walk.
type commitQueue struct {
	items []queued
	seq   int
}

type queued struct {
	c   *object.Commit
	seq int
}

func (q *commitQueue) Len() int { return len(q.items) }
func (q *commitQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if ta, tb := a.c.Committer.When.Unix(), b.c.Committer.When.Unix(); ta != tb {
		return ta > tb
	}
	return a.seq < b.seq
}
func (q *commitQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *commitQueue) Push(x any)    { q.items = append(q.items, x.(queued)) }
func (q *commitQueue) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return it
}

func (q *commitQueue) push(c *object.Commit) {
	q.seq++
	heap.Push(q, queued{c: c, seq: q.seq})
}

func (q *commitQueue) pop() *object.Commit { return heap.Pop(q).(queued).c }

// all reports whether every queued commit satisfies ok.
func (q *commitQueue) all(ok func(plumbing.Hash) bool) bool {
	for _, it := range q.items {
		if !ok(it.c.Hash) {
			return false
		}
	}
	return true
}
