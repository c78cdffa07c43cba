package git

import (
	"context"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

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
	if err == errSplitIndex {
		return "", err
	}
	if err != nil {
		return "", failf("fatal: " + err.Error())
	}
	spec := rp.spec(r)
	if err := rp.statusGate(idx, spec); err != nil {
		return "", err
	}
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
	out := renderStatus(rp.branchLine(head), changes, untracked, false)
	if !utf8.ValidString(out) {
		// As the CLI backend does: a name that is not UTF-8 cannot reach
		// the model raw, so every name is quoted as core.quotepath=true does.
		out = renderStatus(rp.branchLine(head), changes, untracked, true)
	}
	return out, nil
}

// renderStatus writes porcelain v1 lines; full quotes non-ASCII bytes.
func renderStatus(branch string, changes statusSet, untracked []string, full bool) string {
	var b strings.Builder
	b.WriteString(branch)
	for _, p := range sortedKeys(changes) {
		e := changes[p]
		b.WriteByte(column(e.x))
		b.WriteByte(column(e.y))
		b.WriteByte(' ')
		if e.from != "" {
			b.WriteString(quoteName(e.from, full, true) + " -> ")
		}
		b.WriteString(quoteName(p, full, true) + "\n")
	}
	for _, p := range untracked {
		b.WriteString("?? " + quoteName(p, full, true) + "\n")
	}
	return b.String()
}

// statusGate refuses what changes git's status text in ways the go-git
// backend does not reproduce: submodules, configuration that changes what
// is listed, configuration it cannot read (includes), system attributes.
func (rp *repo) statusGate(idx *gitIndex, spec pathSpec) error {
	for _, e := range idx.entries {
		if e.mode&^0o777 == modeGitlink && spec.match(e.name) {
			return needsGit("status of a repository with submodules (" + e.name + ") needs the git binary")
		}
	}
	for _, k := range [][2]string{{"status", "showuntrackedfiles"}, {"status", "renames"}, {"diff", "renames"},
		{"status", "renamelimit"}, {"diff", "renamelimit"}, {"core", "ignorecase"},
		{"core", "precomposeunicode"}} {
		if v, ok := rp.configValue(k[0], k[1]); ok && !defaultSetting(k[0]+"."+k[1], v) {
			return needsGit("status with " + k[0] + "." + k[1] + "=" + v + " needs the git binary")
		}
	}
	if rp.hasIncludes() {
		return needsGit("status needs the git binary: the configuration includes other files")
	}
	if _, err := os.Stat("/etc/gitattributes"); err == nil {
		return needsGit("status needs the git binary: /etc/gitattributes sets system-wide attributes")
	}
	return nil
}

// defaultSetting reports whether a configured value is the one git uses
// anyway, so the go-git backend's output is still git's.
func defaultSetting(key, v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	switch key {
	case "status.showuntrackedfiles":
		return v == "normal"
	case "status.renames", "diff.renames":
		return v == "true" || v == "yes" || v == "on" || v == "1"
	case "core.ignorecase", "core.precomposeunicode":
		return v == "false" || v == "no" || v == "off" || v == "0"
	}
	return false
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
