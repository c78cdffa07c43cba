package git

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/mattn/go-runewidth"
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

// showCommit writes the medium-format header (patch and stat need the git
// binary). With a pathspec a commit that does not touch it prints nothing,
// as git's history simplification hides it.
func (rp *repo) showCommit(b *strings.Builder, h plumbing.Hash, r *request) error {
	c, err := rp.git.CommitObject(h)
	if err != nil {
		return failf(fmt.Sprintf("fatal: bad object %s", h))
	}
	spec := rp.spec(r)
	if r.pathspec != "" {
		if _, treesame, err := rp.simplify(c, spec, nil, nil); err != nil || treesame {
			return err
		}
	}
	if r.patch || r.stat {
		return needsBinary("show of a commit with its patch or stat")
	}
	if c, err = utf8Commit(c); err != nil {
		return err
	}
	b.WriteString(rp.commitHeader(c))
	return nil
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
		l = strings.TrimRight(l, gitSpace)
		if l == "" && !started {
			continue
		}
		started = true
		body += "    " + expandTabs(l) + "\n"
	}
	return strings.TrimRight(b.String()+body, gitSpace) + "\n"
}

// gitSpace is git's isspace: space, tab, LF and CR (not \v or \f).
const gitSpace = " \t\n\r"

// expandTabs is git's tab expansion of an indented log message
// (--expand-tabs=8, the default of the medium format): each tab pads to
// the next multiple of 8 display columns, counted from the previous tab.
// A segment that is not UTF-8 counts its bytes, as git's utf8_strnwidth
// does.
func expandTabs(line string) string {
	if !strings.Contains(line, "\t") {
		return line
	}
	var b strings.Builder
	for {
		seg, rest, found := strings.Cut(line, "\t")
		b.WriteString(seg)
		if !found {
			return b.String()
		}
		b.WriteString(strings.Repeat(" ", 8-displayWidth(seg)%8))
		line = rest
	}
}

// displayWidth sums the positive column widths of s's characters (wide
// East Asian ones count 2, controls and combining marks 0).
func displayWidth(s string) int {
	if !utf8.ValidString(s) {
		return len(s)
	}
	cond := runewidth.Condition{}
	w := 0
	for _, r := range s {
		w += cond.RuneWidth(r)
	}
	return w
}

// normalDate is git's default date format in the signature's own zone.
func normalDate(t interface{ Format(string) string }) string {
	return t.Format("Mon Jan 2 15:04:05 2006 -0700")
}
