package git

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// log renders `git log --max-count=N --date=iso-strict --pretty=format:…`
// with git's default walk: newest committer date first, and for a
// pathspec git's default history simplification (a commit is shown when it
// differs from its parents at the path; a merge that matches one parent
// there is followed through that parent only and not shown).
func (rp *repo) log(ctx context.Context, r *request) (string, error) {
	starts, hidden, bottoms, err := rp.logStarts(ctx, r)
	if err != nil {
		return "", err
	}
	f, err := newLogFilter(r, time.Now())
	if err != nil {
		return "", err
	}
	spec, limited := rp.spec(r), r.pathspec != ""
	q := &commitQueue{}
	seen := map[plumbing.Hash]bool{}
	for _, c := range starts {
		if !seen[c.Hash] && !hidden[c.Hash] {
			seen[c.Hash] = true
			q.push(c)
		}
	}
	var entries []string
	for q.Len() > 0 && len(entries) < r.maxCount {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		c := q.pop()
		if f.hasSince && c.Committer.When.Unix() < f.since {
			continue // like git, an old commit also ends the walk along its line
		}
		parents, treesame := c.ParentHashes, false
		if limited {
			if parents, treesame, err = rp.simplify(c, spec, hidden, bottoms); err != nil {
				return "", err
			}
		}
		for _, p := range parents {
			if seen[p] || hidden[p] {
				continue
			}
			seen[p] = true
			pc, err := rp.git.CommitObject(p)
			if err != nil {
				return "", failf(fmt.Sprintf("fatal: could not read commit %s", p))
			}
			q.push(pc)
		}
		if treesame || !f.keep(c) {
			continue
		}
		if c, err = utf8Commit(c); err != nil {
			return "", err
		}
		entries = append(entries, fmt.Sprintf("%s\nAuthor: %s <%s>\nDate: %s\nSubject: %s\n",
			c.Hash, c.Author.Name, c.Author.Email, c.Author.When.Format("2006-01-02T15:04:05-07:00"), subject(c.Message)))
	}
	return strings.Join(entries, "\n"), nil
}

// logStarts is where log's walk starts and what it must not show, from
// `rev` as `git log <rev>` reads it: nothing (HEAD), one revision, A..B
// (B's history without A's) or A...B (either's without what both reach);
// an empty side is HEAD. The other range forms need the git binary. The
// bottoms are the excluded commits git marks BOTTOM (A of A..B, the merge
// bases of A...B), which history simplification still compares with.
func (rp *repo) logStarts(ctx context.Context, r *request) (starts []*object.Commit, hidden, bottoms map[plumbing.Hash]bool,
	err error) {
	if r.rev == "" {
		head, err := rp.headCommit()
		if err != nil {
			return nil, nil, nil, err
		}
		if head == nil {
			return nil, nil, nil, failf(fmt.Sprintf("fatal: your current branch '%s' does not have any commits yet", rp.currentBranch()))
		}
		return []*object.Commit{head}, nil, nil, nil
	}
	one := func(name string) (*object.Commit, error) {
		if name == "" {
			name = "HEAD"
		}
		h, err := rp.resolveSuffixed(name)
		if err != nil {
			return nil, rp.revFailure(err, r)
		}
		c, err := rp.peelCommit(h)
		if err != nil {
			return nil, rp.revFailure(err, r)
		}
		return c, nil
	}
	if !rp.isRange(r.rev) {
		if strings.Contains(r.rev, "@{") || strings.HasPrefix(r.rev, ":/") || strings.Contains(r.rev, "^{/") {
			return nil, nil, nil, &failure{needsCLI: true, msg: fmt.Sprintf("revision syntax in '%s' needs the git binary", r.rev)}
		}
		h, err := rp.resolve(r.rev)
		if f := (*failure)(nil); err != nil && r.pathspec != "" && errors.As(err, &f) && !f.needsCLI {
			return nil, nil, nil, failf(fmt.Sprintf("fatal: bad revision '%s'", r.rev)) // as git says with a pathspec
		}
		if err != nil {
			return nil, nil, nil, rp.revFailure(err, r)
		}
		c, err := rp.peelCommit(h)
		if err != nil {
			if _, terr := rp.peel(h, ""); terr == nil {
				return nil, nil, nil, nil // a tree or a blob: git log walks nothing and prints nothing
			}
			return nil, nil, nil, rp.revFailure(err, r)
		}
		return []*object.Commit{c}, nil, nil, nil
	}
	i := strings.Index(r.rev, "..")
	if i < 0 || strings.HasPrefix(r.rev, "^") {
		return nil, nil, nil, &failure{needsCLI: true, msg: fmt.Sprintf("the revision form '%s' needs the git binary; "+
			"without it, use A..B or A...B", r.rev)}
	}
	a, b, symmetric := r.rev[:i], r.rev[i+2:], strings.HasPrefix(r.rev[i:], "...")
	if symmetric {
		b = r.rev[i+3:]
	}
	ca, err := one(a)
	if err != nil {
		return nil, nil, nil, err
	}
	cb, err := one(b)
	if err != nil {
		return nil, nil, nil, err
	}
	hidden, err = rp.ancestors(ctx, ca)
	if err != nil {
		return nil, nil, nil, err
	}
	if !symmetric {
		return []*object.Commit{cb}, hidden, map[plumbing.Hash]bool{ca.Hash: true}, nil
	}
	ofB, err := rp.ancestors(ctx, cb)
	if err != nil {
		return nil, nil, nil, err
	}
	both := map[plumbing.Hash]bool{}
	for h := range hidden {
		if ofB[h] {
			both[h] = true
		}
	}
	// The merge bases: the common commits no other common commit descends from.
	bottoms = maps.Clone(both)
	for h := range both {
		c, err := rp.git.CommitObject(h)
		if err != nil {
			return nil, nil, nil, failf(fmt.Sprintf("fatal: could not read commit %s", h))
		}
		for _, p := range c.ParentHashes {
			delete(bottoms, p)
		}
	}
	return []*object.Commit{ca, cb}, both, bottoms, nil
}

// ancestors is every commit reachable from c, c included.
func (rp *repo) ancestors(ctx context.Context, c *object.Commit) (map[plumbing.Hash]bool, error) {
	seen := map[plumbing.Hash]bool{c.Hash: true}
	todo := []plumbing.Hash{c.Hash}
	for len(todo) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		pc, err := rp.git.CommitObject(h)
		if err != nil {
			return nil, failf(fmt.Sprintf("fatal: could not read commit %s", h))
		}
		for _, p := range pc.ParentHashes {
			if !seen[p] {
				seen[p] = true
				todo = append(todo, p)
			}
		}
	}
	return seen, nil
}

// simplify is git's TREESAME rule for one commit and pathspec: it returns
// the parents to walk and whether the commit is hidden. As in git, a parent
// the range excludes (hidden), unless it is one of the range's bottoms, is
// irrelevant: matching it does not simplify the merge away. The commit is
// TREESAME when it matches a relevant parent (walked alone then), or, with
// no relevant parent, when it matches them all.
func (rp *repo) simplify(c *object.Commit, spec pathSpec, hidden, bottoms map[plumbing.Hash]bool) ([]plumbing.Hash, bool, error) {
	tree, err := c.Tree()
	if err != nil {
		return nil, false, failf("fatal: " + err.Error())
	}
	mine := entryAt(tree, spec)
	if len(c.ParentHashes) == 0 {
		return nil, mine == nil, nil
	}
	relevantParents, relevantChange, irrelevantChange := 0, false, false
	for _, p := range c.ParentHashes {
		relevant := !hidden[p] || bottoms[p]
		if relevant {
			relevantParents++
		}
		pc, err := rp.git.CommitObject(p)
		if err != nil {
			return nil, false, failf(fmt.Sprintf("fatal: could not read commit %s", p))
		}
		pt, err := pc.Tree()
		if err != nil {
			return nil, false, failf("fatal: " + err.Error())
		}
		switch same := sameEntry(mine, entryAt(pt, spec)); {
		case same && relevant:
			return []plumbing.Hash{p}, true, nil
		case same:
		case relevant:
			relevantChange = true
		default:
			irrelevantChange = true
		}
	}
	if relevantParents > 0 {
		return c.ParentHashes, !relevantChange, nil
	}
	return c.ParentHashes, !irrelevantChange, nil
}

// entryAt is what tree holds at the pathspec (nil when nothing); for the
// whole tree it is the root itself.
func entryAt(tree *object.Tree, spec pathSpec) *object.TreeEntry {
	if spec.all {
		return &object.TreeEntry{Hash: tree.Hash, Mode: modeDir}
	}
	e, err := tree.FindEntry(spec.path)
	if err != nil {
		return nil
	}
	return e
}

func sameEntry(a, b *object.TreeEntry) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Hash == b.Hash && a.Mode == b.Mode
}

// subject is %s: the message's first paragraph with its lines joined by
// spaces and trailing whitespace dropped.
func subject(msg string) string {
	lines := strings.Split(msg, "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	var parts []string
	for ; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t\r\v\f")
		if l == "" {
			break
		}
		parts = append(parts, l)
	}
	return strings.Join(parts, " ")
}

// currentBranch is the short name of the branch HEAD points at.
func (rp *repo) currentBranch() string {
	ref, err := rp.git.Storer.Reference(plumbing.HEAD)
	if err != nil || ref.Type() != plumbing.SymbolicReference {
		return "HEAD"
	}
	return strings.TrimPrefix(ref.Target().String(), "refs/heads/")
}

// logFilter holds --since, --until and --author.
type logFilter struct {
	hasSince, hasUntil bool
	since, until       int64
	author             *regexp.Regexp
}

// newLogFilter parses the filters; a value the native parsers do not
// understand is a failure that asks for the git binary.
func newLogFilter(r *request, now time.Time) (*logFilter, error) {
	f := &logFilter{}
	var ok bool
	if r.since != "" {
		if f.since, ok = parseApproxDate(r.since, now); !ok {
			return nil, unsupportedDate("since", r.since)
		}
		f.hasSince = true
	}
	if r.till != "" {
		if f.until, ok = parseApproxDate(r.till, now); !ok {
			return nil, unsupportedDate("until", r.till)
		}
		f.hasUntil = true
	}
	if r.author != "" {
		re, err := compileBRE(r.author)
		if err != nil {
			return nil, &failure{needsCLI: true, msg: fmt.Sprintf("the author pattern %q uses regular-expression syntax "+
				"this build cannot evaluate without the git binary; use a plain name or e-mail fragment", r.author)}
		}
		f.author = re
	}
	return f, nil
}

func unsupportedDate(field, value string) error {
	return &failure{needsCLI: true, msg: fmt.Sprintf("cannot read %s date %q without the git binary; use "+
		"YYYY-MM-DD, YYYY-MM-DD HH:MM[:SS] (optionally with a zone such as +02:00), @<unix seconds>, "+
		"or '<n> <seconds|minutes|hours|days|weeks|months|years> ago'", field, value)}
}

// keep applies --until (committer date) and --author (matched against
// "Name <email>", as git greps the author header).
func (f *logFilter) keep(c *object.Commit) bool {
	if f.hasUntil && c.Committer.When.Unix() > f.until {
		return false
	}
	return f.author == nil || f.author.MatchString(c.Author.Name+" <"+c.Author.Email+">")
}
