package git

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	format "github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/codewhale/codewhale/internal/gitrepo"
)

// nativeBackend renders git's text from go-git reads; it needs no binary.
type nativeBackend struct{}

func (nativeBackend) name() string { return "go-git" }

func (nativeBackend) run(ctx context.Context, r *request) (text string, err error) {
	// A repository this package misreads must not take the agent down:
	// report it, and let the tool retry with the git binary if it has one.
	defer func() {
		if p := recover(); p != nil {
			text, err = "", &failure{needsCLI: true, msg: fmt.Sprintf("internal error in the go-git backend: %v", p)}
		}
	}()
	rp, err := openRepo(r.dir)
	if err != nil {
		return "", err
	}
	switch r.action {
	case "status":
		return rp.status(ctx, r)
	case "diff", "blame":
		return "", needsBinary(r.action)
	case "log":
		return rp.log(ctx, r)
	case "show":
		return rp.show(ctx, r)
	}
	return "", errors.New("unknown git action " + r.action)
}

// needsBinary is the refusal for what the go-git backend does not do: the
// actions whose text comes from git's diff machinery (docs/PERFORMANCE.md,
// "Git's native backend", records why). The tool turns it into a
// NotAvailable error when there is no binary to hand the call to.
func needsBinary(what string) error {
	return &failure{needsCLI: true, msg: "Git " + what + " needs the git binary: its text comes from git's diff " +
		"machinery (the diff algorithm, .gitattributes diff drivers, textconv and eol filters), which codewhale does " +
		"not reimplement"}
}

// repo is an opened repository plus what the renderers need to know about
// where the call runs.
type repo struct {
	git       *gitrepo.Repo
	gitDir    string // the repository's git directory (a linked worktree's own: HEAD, index)
	commonDir string // what linked worktrees share (objects, refs, info); gitDir otherwise
	root      string // worktree root; "" when core.bare is set
	prefix    string // the working directory relative to root, '/'-separated, "" at the root

	abbrevLen int                      // git's automatic abbreviation length; 0 until computed
	abbrevs   map[plumbing.Hash]string // unique abbreviations already computed
	configs   []*format.Config         // local then global config, loaded on first use
}

var errNotRepo = failf("fatal: not a git repository (or any of the parent directories): .git")

// openRepo opens the repository containing dir, as git does from a working
// directory.
func openRepo(dir string) (*repo, error) {
	g, err := gitrepo.Open(dir)
	if errors.Is(err, gitrepo.ErrNotExist) {
		return nil, errNotRepo
	}
	if err != nil {
		// A repository go-git cannot read may still be one git can.
		return nil, &failure{needsCLI: true, msg: "fatal: " + err.Error()}
	}
	rp := &repo{git: g, gitDir: g.GitDir, commonDir: g.CommonDir, root: g.Root, abbrevs: map[plumbing.Hash]string{}}
	if rp.root == "" {
		return rp, nil
	}
	if canon, err := filepath.EvalSymlinks(rp.root); err == nil {
		rp.root = canon
	}
	if rel, err := filepath.Rel(rp.root, dir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		rp.prefix = filepath.ToSlash(rel)
	}
	return rp, nil
}

// needWorktree fails like git does for worktree reads in a bare repository.
func (rp *repo) needWorktree() error {
	if rp.root == "" {
		return failf("fatal: this operation must be run in a work tree")
	}
	return nil
}

// spec turns the request's pathspec into a repository-relative filter.
func (rp *repo) spec(r *request) pathSpec {
	switch r.pathspec {
	case "":
		return pathSpec{all: true}
	case ".":
		return pathSpec{path: rp.prefix, all: rp.prefix == ""}
	}
	return pathSpec{path: joinPath(rp.prefix, r.pathspec)}
}

// pathSpec is one literal git pathspec, repository-relative: it matches the
// path itself and everything below it.
type pathSpec struct {
	path string
	all  bool
}

func (s pathSpec) match(p string) bool {
	return s.all || p == s.path || strings.HasPrefix(p, s.path+"/")
}

// mayContain reports whether entries under directory dir can match.
func (s pathSpec) mayContain(dir string) bool {
	return s.all || dir == "" || s.match(dir) || strings.HasPrefix(s.path, dir+"/")
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// abbrev returns the shortest unique abbreviation of h that is at least
// git's automatic length (core.abbrev=auto).
func (rp *repo) abbrev(h plumbing.Hash) string {
	if s, ok := rp.abbrevs[h]; ok {
		return s
	}
	if rp.abbrevLen == 0 {
		rp.abbrevLen = autoAbbrevLen(packedObjectCount(rp.commonDir))
	}
	full := h.String()
	n := rp.abbrevLen
	if h.IsZero() {
		return full[:n]
	}
	for _, o := range rp.objectsWithPrefix(full[:n-1]) {
		if o == h {
			continue
		}
		common := 0
		for common < len(full) && o.String()[common] == full[common] {
			common++
		}
		n = max(n, common+1)
	}
	rp.abbrevs[h] = full[:n]
	return full[:n]
}

// autoAbbrevLen is git's automatic abbreviation length for a repository of
// about count objects: enough hex digits to expect no collision, at least 7.
func autoAbbrevLen(count int) int {
	bits := 0
	for c := count; c > 0; c >>= 1 {
		bits++
	}
	return max(7, (bits+1)/2)
}

// packedObjectCount sums the object counts of the pack indexes, which is
// what git's estimate counts (loose objects are not included).
func packedObjectCount(gitDir string) int {
	idx, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.idx"))
	total := 0
	for _, p := range idx {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		var head [8 + 256*4]byte
		if _, err := f.ReadAt(head[:], 0); err == nil && string(head[:4]) == "\xfftOc" {
			total += int(binary.BigEndian.Uint32(head[8+255*4:]))
		}
		f.Close()
	}
	return total
}

func (nativeBackend) objectKind(_ context.Context, r *request, rev string) (string, error) {
	rp, err := openRepo(r.dir)
	if err != nil {
		return "", nil // the show itself reports it
	}
	h, err := rp.resolve(rev)
	if err != nil {
		return "", nil
	}
	if _, err := rp.peel(h, "commit"); err == nil {
		return "commit", nil
	}
	obj, err := rp.git.Storer.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return "", nil
	}
	return obj.Type().String(), nil
}

func (nativeBackend) knows(ctx context.Context, r *request) (bool, error) {
	rp, err := openRepo(r.dir)
	if err != nil {
		return false, err
	}
	return rp.knows(ctx, rp.spec(r))
}

// knows reports whether the index, or the tree of any commit reachable from
// a ref, has something at spec. It walks the whole history when nothing
// does, so it is asked only after a read came back empty.
func (rp *repo) knows(ctx context.Context, spec pathSpec) (bool, error) {
	if idx, err := readIndex(rp.gitDir); err == nil {
		for _, e := range idx.entries {
			if spec.match(e.name) {
				return true, nil
			}
		}
	}
	refs, err := rp.git.Storer.IterReferences()
	if err != nil {
		return false, failf("fatal: " + err.Error())
	}
	var queue []plumbing.Hash
	_ = refs.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() == plumbing.HashReference {
			if h, err := rp.peel(ref.Hash(), "commit"); err == nil {
				queue = append(queue, h)
			}
		}
		return nil
	})
	seen := map[plumbing.Hash]bool{}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		h := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := rp.git.CommitObject(h)
		if err != nil {
			continue
		}
		if tree, err := c.Tree(); err == nil && entryAt(tree, spec) != nil {
			return true, nil
		}
		queue = append(queue, c.ParentHashes...)
	}
	return false, nil
}
