package git

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// show renders `git show [--unified=N|--no-patch] [--stat] <rev> [-- spec]`
// for a commit, annotated tag, tree or blob. Paths in the patch use git's
// default quoting (core.quotepath=true), as the command line does not
// override it.
func (rp *repo) show(ctx context.Context, r *request) (string, error) {
	h, err := rp.resolve(r.rev)
	if err != nil {
		return "", rp.revFailure(err, r)
	}
	var b strings.Builder
	name, afterTag := r.rev, false
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		obj, err := rp.git.Storer.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return "", failf(fmt.Sprintf("fatal: bad object %s", h))
		}
		switch obj.Type() {
		case plumbing.TagObject:
			tag, err := rp.git.TagObject(h)
			if err != nil {
				return "", failf(fmt.Sprintf("fatal: bad object %s", h))
			}
			if afterTag {
				b.WriteString("\n")
			}
			rp.showTag(&b, tag)
			h, afterTag = tag.Target, true
			continue
		case plumbing.CommitObject:
			if afterTag {
				b.WriteString("\n")
			}
			err = rp.showCommit(&b, h, r)
		case plumbing.TreeObject:
			if afterTag {
				b.WriteString("\n")
			}
			err = rp.showTree(&b, h, name)
		case plumbing.BlobObject:
			b.Write(rp.blobBytes(h))
		}
		return b.String(), err
	}
}

// revFailure words a failed resolution as git does for the command.
func (rp *repo) revFailure(err error, r *request) error {
	if !errors.Is(err, errBadRev) {
		return err
	}
	if r.action == "blame" || r.pathspec != "" {
		return failf(fmt.Sprintf("fatal: bad revision '%s'", r.rev))
	}
	return failf(fmt.Sprintf("fatal: ambiguous argument '%s': unknown revision or path not in the working tree.\n"+
		"Use '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'", r.rev))
}

func (rp *repo) showTag(b *strings.Builder, t *object.Tag) {
	fmt.Fprintf(b, "tag %s\n", t.Name)
	if t.Tagger.Email != "" || t.Tagger.Name != "" {
		fmt.Fprintf(b, "Tagger: %s <%s>\nDate:   %s\n", t.Tagger.Name, t.Tagger.Email, normalDate(t.Tagger.When))
	}
	b.WriteString("\n" + t.Message + t.PGPSignature)
}

func (rp *repo) showTree(b *strings.Builder, h plumbing.Hash, name string) error {
	t, err := rp.git.TreeObject(h)
	if err != nil {
		return failf(fmt.Sprintf("fatal: bad object %s", h))
	}
	fmt.Fprintf(b, "tree %s\n\n", name)
	for _, e := range t.Entries {
		b.WriteString(e.Name)
		if e.Mode == modeDir {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	return nil
}

// showCommit writes the medium-format header and the diff against the
// first parent. With a pathspec a commit that does not touch it prints
// nothing, as git's history simplification hides it.
func (rp *repo) showCommit(b *strings.Builder, h plumbing.Hash, r *request) error {
	c, err := rp.git.CommitObject(h)
	if err != nil {
		return failf(fmt.Sprintf("fatal: bad object %s", h))
	}
	spec := rp.spec(r)
	if r.pathspec != "" {
		if _, treesame, err := rp.simplify(c, spec); err != nil || treesame {
			return err
		}
	}
	b.WriteString(rp.commitHeader(c))
	if !r.patch && !r.stat {
		return nil
	}
	changes, err := rp.firstParentChanges(c, spec)
	if err != nil {
		return err
	}
	if len(c.ParentHashes) > 1 {
		return rp.showMergeDiff(b, c, changes, spec, r)
	}
	if len(changes) == 0 {
		return nil
	}
	pairs := rp.blobPairs(changes)
	switch {
	case r.patch && r.stat:
		b.WriteString("---\n")
		rp.renderStat(b, pairs)
		b.WriteString("\n")
		rp.renderPatch(b, pairs, r.unified, true)
	case r.stat:
		b.WriteString("\n")
		rp.renderStat(b, pairs)
	default:
		b.WriteString("\n")
		rp.renderPatch(b, pairs, r.unified, true)
	}
	return nil
}

// showMergeDiff writes a merge's stat (against its first parent) and its
// dense combined diff, which is empty unless a path differs from every
// parent; that case needs git's combined-diff engine.
func (rp *repo) showMergeDiff(b *strings.Builder, c *object.Commit, first []fileChange, spec pathSpec, r *request) error {
	if r.patch {
		conflicted, err := rp.differsFromAllParents(c, first, spec)
		if err != nil {
			return err
		}
		if conflicted {
			return &failure{needsCLI: true, msg: "this merge changes files relative to every parent; its combined " +
				"diff needs the git binary (pass patch:false for the header and stat)"}
		}
	}
	b.WriteString("\n")
	if r.stat {
		rp.renderStat(b, rp.blobPairs(first))
	}
	return nil
}

func (rp *repo) differsFromAllParents(c *object.Commit, first []fileChange, spec pathSpec) (bool, error) {
	candidates := map[string]bool{}
	for _, ch := range first {
		candidates[ch.key()] = true
	}
	tree, err := c.Tree()
	if err != nil {
		return false, failf("fatal: " + err.Error())
	}
	for _, ph := range c.ParentHashes[1:] {
		p, err := rp.git.CommitObject(ph)
		if err != nil {
			return false, failf(fmt.Sprintf("fatal: bad object %s", ph))
		}
		pt, err := p.Tree()
		if err != nil {
			return false, failf("fatal: " + err.Error())
		}
		var other []fileChange
		if err := rp.diffTrees(pt, tree, "", spec, &other); err != nil {
			return false, err
		}
		seen := map[string]bool{}
		for _, ch := range other {
			seen[ch.key()] = true
		}
		for k := range candidates {
			if !seen[k] {
				delete(candidates, k)
			}
		}
	}
	return len(candidates) > 0, nil
}

// firstParentChanges diffs a commit against its first parent (or the empty
// tree for a root commit).
func (rp *repo) firstParentChanges(c *object.Commit, spec pathSpec) ([]fileChange, error) {
	tree, err := c.Tree()
	if err != nil {
		return nil, failf("fatal: " + err.Error())
	}
	var parentTree *object.Tree
	if len(c.ParentHashes) > 0 {
		p, err := rp.git.CommitObject(c.ParentHashes[0])
		if err != nil {
			return nil, failf(fmt.Sprintf("fatal: bad object %s", c.ParentHashes[0]))
		}
		if parentTree, err = p.Tree(); err != nil {
			return nil, failf("fatal: " + err.Error())
		}
	}
	return rp.treeChanges(parentTree, tree, spec)
}

// commitHeader is git's medium pretty format.
func (rp *repo) commitHeader(c *object.Commit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "commit %s\n", c.Hash)
	if len(c.ParentHashes) > 1 {
		b.WriteString("Merge:")
		for _, p := range c.ParentHashes {
			b.WriteString(" " + rp.abbrev(p))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Author: %s <%s>\nDate:   %s\n", c.Author.Name, c.Author.Email, normalDate(c.Author.When))
	body := "\n"
	lines := strings.Split(c.Message, "\n")
	started := false
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\r\v\f")
		if l == "" && !started {
			continue
		}
		started = true
		body += "    " + l + "\n"
	}
	return strings.TrimRight(b.String()+body, " \t\n\r\v\f") + "\n"
}

// normalDate is git's default date format in the signature's own zone.
func normalDate(t interface{ Format(string) string }) string {
	return t.Format("Mon Jan 2 15:04:05 2006 -0700")
}
