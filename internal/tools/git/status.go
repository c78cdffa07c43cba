package git

import (
	"context"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Index and tree entry modes.
const (
	modeDir     = 0o040000
	modeFile    = 0o100644
	modeExec    = 0o100755
	modeSymlink = 0o120000
	modeGitlink = 0o160000
)

// statusEntry is one line of porcelain v1 status before rendering.
type statusEntry struct {
	x, y byte   // index and worktree columns; 0 = unchanged
	from string // rename source, "" when not a rename
}

// status renders `git status --porcelain=v1 -b [-- spec]`.
func (rp *repo) status(ctx context.Context, r *request) (string, error) {
	if err := rp.needWorktree(); err != nil {
		return "", err
	}
	idx, err := readIndex(rp.gitDir)
	if err != nil {
		return "", failf("fatal: " + err.Error())
	}
	spec := rp.spec(r)
	changes := statusSet{}
	head, err := rp.headCommit()
	if err != nil {
		return "", err
	}
	if err := rp.stagedChanges(idx, head, spec, changes); err != nil {
		return "", err
	}
	if err := rp.worktreeChanges(ctx, idx, spec, changes); err != nil {
		return "", err
	}
	untracked, err := rp.untracked(ctx, idx, spec)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(rp.branchLine(head))
	for _, p := range sortedKeys(changes) {
		e := changes[p]
		b.WriteByte(column(e.x))
		b.WriteByte(column(e.y))
		b.WriteByte(' ')
		if e.from != "" {
			b.WriteString(quoteName(e.from, false, true) + " -> ")
		}
		b.WriteString(quoteName(p, false, true) + "\n")
	}
	for _, p := range untracked {
		b.WriteString("?? " + quoteName(p, false, true) + "\n")
	}
	return b.String(), nil
}

// statusSet holds the changed paths by their (new) path.
type statusSet map[string]*statusEntry

func (s statusSet) at(p string) *statusEntry {
	if s[p] == nil {
		s[p] = &statusEntry{}
	}
	return s[p]
}

func column(c byte) byte {
	if c == 0 {
		return ' '
	}
	return c
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// headCommit is the commit HEAD points at, or nil on an unborn branch.
func (rp *repo) headCommit() (*object.Commit, error) {
	ref, err := rp.git.Reference(plumbing.HEAD, true)
	if err == plumbing.ErrReferenceNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, failf("fatal: " + err.Error())
	}
	c, err := rp.git.CommitObject(ref.Hash())
	if err != nil {
		return nil, failf("fatal: bad object HEAD")
	}
	return c, nil
}

// treeFile is a blob entry of a tree.
type treeFile struct {
	hash plumbing.Hash
	mode uint32
}

// stagedChanges fills the index column from HEAD against the index, and
// the XY codes of unmerged paths.
func (rp *repo) stagedChanges(idx *gitIndex, head *object.Commit, spec pathSpec, changes statusSet) error {
	staged, unmerged, err := rp.headIndexChanges(idx, head, spec)
	if err != nil {
		return err
	}
	for _, c := range staged {
		e := changes.at(c.key())
		e.x = c.status
		if c.status == 'R' {
			e.from = c.from.path
		}
	}
	for p, stages := range unmerged {
		code := unmergedCodes[stages]
		e := changes.at(p)
		e.x, e.y = code[0], code[1]
	}
	return nil
}

// unmergedCodes maps the set of present stages (bit 0 base, 1 ours,
// 2 theirs) to porcelain's XY pair.
var unmergedCodes = map[int]string{1: "DD", 2: "AU", 3: "UD", 4: "UA", 5: "DU", 6: "AA", 7: "UU"}

// collectTree lists the blobs of tree under dir that spec can match,
// skipping subtrees the index's cache-tree proves unchanged.
func (rp *repo) collectTree(tree *object.Tree, dir string, spec pathSpec, ct *cacheTree, out map[string]treeFile, skipped map[string]bool) error {
	if c := ct.lookup(dir); c != nil && c.hash == tree.Hash {
		skipped[dir] = true
		return nil
	}
	for _, te := range tree.Entries {
		p := joinPath(dir, te.Name)
		if te.Mode == modeDir {
			if !spec.mayContain(p) {
				continue
			}
			sub, err := rp.git.TreeObject(te.Hash)
			if err != nil {
				return failf("fatal: " + err.Error())
			}
			if err := rp.collectTree(sub, p, spec, ct, out, skipped); err != nil {
				return err
			}
			continue
		}
		if spec.match(p) {
			out[p] = treeFile{hash: te.Hash, mode: uint32(te.Mode)}
		}
	}
	return nil
}

// objectType classifies a mode as blob, symlink or gitlink for type changes.
func objectType(mode uint32) uint32 {
	switch mode &^ 0o777 {
	case modeSymlink, modeGitlink:
		return mode &^ 0o777
	}
	return 0o100000
}

// blobHash is the object name git gives content stored as a blob.
func blobHash(content []byte) plumbing.Hash {
	return plumbing.ComputeHash(plumbing.BlobObject, content)
}
