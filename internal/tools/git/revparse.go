package git

import (
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/codewhale/codewhale/internal/lazyre"
)

// errBadRev is a revision that names no object; callers turn it into the
// message git prints in their context.
var errBadRev = errors.New("bad revision")

var describeName = lazyre.New(`-g([0-9a-f]{4,40})$`)

// resolve maps a revision to an object name without peeling it, parsing
// as git's get_oid does: <rev>:<path> (":<path>" reads the index), then the
// suffixes from the end — ~N, ^N (N defaults to 1), ^{type} and ^{} — and
// finally a base name: a ref (with git's lookup rules), a full or
// abbreviated object name, or describe output. Anything else is a bad
// revision ("HEAD~1abc" is one, as in git). Ranges (A..B, A...B, ^A, A^@,
// A^!), reflog (@{…}) and search (:/…, ^{/…}) forms need the git binary.
func (rp *repo) resolve(rev string) (plumbing.Hash, error) {
	if strings.Contains(rev, "@{") || strings.HasPrefix(rev, ":/") || strings.Contains(rev, "^{/") {
		return plumbing.ZeroHash, &failure{needsCLI: true, msg: fmt.Sprintf("revision syntax in '%s' needs the git binary", rev)}
	}
	if rp.isRange(rev) {
		return plumbing.ZeroHash, &failure{needsCLI: true, msg: fmt.Sprintf("the revision range '%s' needs the git binary "+
			"(without it, show one commit at a time)", rev)}
	}
	if base, p, ok := cutTreePath(rev); ok {
		return rp.resolvePath(rev, base, p)
	}
	return rp.resolveSuffixed(rev)
}

// isRange reports whether git would read rev as more than one commit: a
// leading ^, a ^@ ^! ^-N suffix, or A..B / A...B whose sides both resolve
// (an empty side is HEAD); like git, a ".." that does not split into two
// revisions leaves rev a single name.
func (rp *repo) isRange(rev string) bool {
	if strings.HasPrefix(rev, "^") || strings.HasSuffix(rev, "^@") || strings.HasSuffix(rev, "^!") ||
		regexpDashSuffix(rev) {
		return true
	}
	i := strings.Index(rev, "..")
	if i < 0 {
		return false
	}
	a, b := rev[:i], strings.TrimPrefix(rev[i+2:], ".")
	side := func(s string) bool {
		if s == "" {
			return true
		}
		_, err := rp.resolveSuffixed(s)
		return err == nil
	}
	return side(a) && side(b)
}

// regexpDashSuffix matches git's "<rev>^-" and "<rev>^-<n>" (the commit's
// parents excluded).
func regexpDashSuffix(rev string) bool {
	i := strings.LastIndex(rev, "^-")
	return i > 0 && strings.Trim(rev[i+2:], "0123456789") == ""
}

// resolveSuffixed is git's get_oid_1: the last ~N or ^N suffix applies to
// what the rest names; then a trailing ^{type}; then a base name.
func (rp *repo) resolveSuffixed(name string) (plumbing.Hash, error) {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i > 0 && (name[i-1] == '~' || name[i-1] == '^') {
		n := 1
		if digits := name[i:]; digits != "" {
			v, err := strconv.ParseInt(digits, 10, 32)
			if err != nil {
				return plumbing.ZeroHash, errBadRev
			}
			n = int(v)
		}
		base, err := rp.resolveSuffixed(name[:i-1])
		if err != nil {
			return base, err
		}
		c, err := rp.peelCommit(base)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if name[i-1] == '^' {
			return nthParent(c, n)
		}
		return rp.nthAncestor(c, n)
	}
	if strings.HasSuffix(name, "}") {
		if j := strings.LastIndex(name, "^{"); j >= 0 {
			base, err := rp.resolveSuffixed(name[:j])
			if err != nil {
				return base, err
			}
			return rp.peel(base, name[j+2:len(name)-1])
		}
	}
	return rp.resolveBase(name)
}

func (rp *repo) nthAncestor(c *object.Commit, n int) (plumbing.Hash, error) {
	for range n {
		h, err := nthParent(c, 1)
		if err != nil {
			return h, err
		}
		if c, err = rp.git.CommitObject(h); err != nil {
			return plumbing.ZeroHash, errBadRev
		}
	}
	return c.Hash, nil
}

// cutTreePath splits "<rev>:<path>" at the first colon outside ^{…}.
func cutTreePath(rev string) (string, string, bool) {
	depth := 0
	for i := 0; i < len(rev); i++ {
		switch rev[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ':':
			if depth == 0 {
				return rev[:i], rev[i+1:], true
			}
		}
	}
	return "", "", false
}

func (rp *repo) resolvePath(rev, base, p string) (plumbing.Hash, error) {
	if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || p == "." || p == ".." {
		p = path.Join(rp.prefix, p)
	}
	p = strings.Trim(path.Clean("/"+p), "/")
	if base == "" {
		return rp.indexPath(rev, p)
	}
	h, err := rp.resolve(base)
	if err != nil {
		return h, err
	}
	tree, err := rp.peelTree(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if p == "" {
		return tree.Hash, nil
	}
	e, err := tree.FindEntry(p)
	if err != nil {
		return plumbing.ZeroHash, failf(fmt.Sprintf("fatal: path '%s' does not exist in '%s'", p, base))
	}
	return e.Hash, nil
}

// indexPath resolves ":<path>" and ":<n>:<path>" (stage n, 0 to 3; a
// conflict's base, ours and theirs are 1, 2 and 3) against the index.
func (rp *repo) indexPath(rev, p string) (plumbing.Hash, error) {
	stage := 0
	if len(p) >= 2 && p[0] >= '0' && p[0] <= '3' && p[1] == ':' {
		stage, p = int(p[0]-'0'), p[2:]
	}
	idx, err := readIndex(rp.gitDir)
	if err == errSplitIndex {
		return plumbing.ZeroHash, err
	}
	if err != nil {
		return plumbing.ZeroHash, failf("fatal: " + err.Error())
	}
	other := false
	for _, e := range idx.entries {
		if e.name == p && e.stage == stage {
			return e.hash, nil
		}
		other = other || e.name == p
	}
	if other {
		return plumbing.ZeroHash, failf(fmt.Sprintf("fatal: path '%s' is in the index, but not at stage %d", p, stage))
	}
	return plumbing.ZeroHash, failf(fmt.Sprintf("fatal: path '%s' does not exist (neither on disk nor in the index)", p))
}

// resolveBase resolves a name without suffixes.
func (rp *repo) resolveBase(name string) (plumbing.Hash, error) {
	switch name {
	case "":
		return plumbing.ZeroHash, errBadRev
	case "@":
		name = "HEAD"
	}
	if len(name) == 40 {
		if b, err := hex.DecodeString(name); err == nil {
			var h plumbing.Hash
			copy(h[:], b)
			if _, err := rp.git.Storer.EncodedObject(plumbing.AnyObject, h); err == nil {
				return h, nil
			}
		}
	}
	for _, rule := range []string{"%s", "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD"} {
		ref, err := rp.git.Reference(plumbing.ReferenceName(fmt.Sprintf(rule, name)), true)
		if err == nil {
			return ref.Hash(), nil
		}
	}
	if m := describeName().FindStringSubmatch(name); m != nil {
		name = m[1]
	}
	return rp.resolvePrefix(name)
}

// resolvePrefix finds the one object whose name starts with prefix.
func (rp *repo) resolvePrefix(prefix string) (plumbing.Hash, error) {
	if len(prefix) < 4 || len(prefix) > 40 || strings.Trim(strings.ToLower(prefix), "0123456789abcdef") != "" {
		return plumbing.ZeroHash, errBadRev
	}
	prefix = strings.ToLower(prefix)
	found := rp.objectsWithPrefix(prefix)
	switch len(found) {
	case 0:
		return plumbing.ZeroHash, errBadRev
	case 1:
		return found[0], nil
	}
	return plumbing.ZeroHash, failf(fmt.Sprintf("error: short object ID %s is ambiguous", prefix))
}

func nthParent(c *object.Commit, n int) (plumbing.Hash, error) {
	if n == 0 {
		return c.Hash, nil
	}
	if n > len(c.ParentHashes) {
		return plumbing.ZeroHash, errBadRev
	}
	return c.ParentHashes[n-1], nil
}

// peel follows tags to an object of the wanted type ("" = the first
// non-tag).
func (rp *repo) peel(h plumbing.Hash, want string) (plumbing.Hash, error) {
	for {
		obj, err := rp.git.Storer.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return plumbing.ZeroHash, errBadRev
		}
		typ := obj.Type().String()
		switch {
		case typ == want || (want == "" && obj.Type() != plumbing.TagObject) || want == "object":
			return h, nil
		case obj.Type() == plumbing.TagObject:
			t, err := rp.git.TagObject(h)
			if err != nil {
				return plumbing.ZeroHash, errBadRev
			}
			h = t.Target
		case obj.Type() == plumbing.CommitObject && want == "tree":
			c, err := rp.git.CommitObject(h)
			if err != nil {
				return plumbing.ZeroHash, errBadRev
			}
			return c.TreeHash, nil
		default:
			return plumbing.ZeroHash, errBadRev
		}
	}
}

func (rp *repo) peelCommit(h plumbing.Hash) (*object.Commit, error) {
	h, err := rp.peel(h, "commit")
	if err != nil {
		return nil, err
	}
	c, err := rp.git.CommitObject(h)
	if err != nil {
		return nil, errBadRev
	}
	return c, nil
}

func (rp *repo) peelTree(h plumbing.Hash) (*object.Tree, error) {
	h, err := rp.peel(h, "tree")
	if err != nil {
		return nil, err
	}
	t, err := rp.git.TreeObject(h)
	if err != nil {
		return nil, errBadRev
	}
	return t, nil
}
