// Package gitrepo finds the Git repository that contains a directory, the
// way git does from a working directory, and opens its object and reference
// storage with go-git.
//
// It stands in for go-git's PlainOpen so that codewhale does not link go-git's
// root package: that package imports every transport (ssh, http, file) and
// their dependencies, which cost about 2 ms at every start of the binary
// (docs/PERFORMANCE.md), and codewhale only ever reads a local repository.
package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	format "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// ErrNotExist means no directory from the start upwards holds a repository.
var ErrNotExist = errors.New("repository does not exist")

// Repo is an opened repository.
type Repo struct {
	Storer *filesystem.Storage
	// GitDir is the repository's git directory; for a linked worktree, its
	// private one (HEAD, index).
	GitDir string
	// CommonDir holds what linked worktrees share (objects, refs, config,
	// info); it is GitDir outside linked worktrees.
	CommonDir string
	// Root is the top of the worktree; "" when core.bare is set.
	Root string
}

// Open finds the repository containing dir: the nearest dir or parent with a
// .git directory, or a .git file naming one ("gitdir: ..."), whose commondir
// file, if any, points at the shared directory of a linked worktree.
func Open(dir string) (*Repo, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	for {
		gitDir, err := dotGit(dir)
		if err == nil {
			common, err := commonDir(gitDir)
			if err != nil {
				return nil, err
			}
			return openAt(gitDir, common, dir)
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, ErrNotExist
		}
		dir = parent
	}
}

// dotGit returns the git directory named by dir/.git, or an error wrapping
// os.ErrNotExist when there is none.
func dotGit(dir string) (string, error) {
	p := filepath.Join(dir, ".git")
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return p, nil
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	target, ok := strings.CutPrefix(line, "gitdir: ")
	if !ok {
		return "", fmt.Errorf("%s: .git file has no gitdir: line", p)
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return target, nil
}

// Dirs returns the git directory and the common directory of the worktree
// whose top is root, reading only the .git and commondir files: for callers
// that need a path in the repository (info/exclude), not its objects.
func Dirs(root string) (gitDir, common string, err error) {
	if gitDir, err = dotGit(root); err != nil {
		return "", "", err
	}
	if common, err = commonDir(gitDir); err != nil {
		return "", "", err
	}
	return gitDir, common, nil
}

// commonDir is gitDir's commondir target, or gitDir itself when it has none.
func commonDir(gitDir string) (string, error) {
	if _, err := os.Stat(gitDir); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", ErrNotExist
		}
		return "", err
	}
	raw, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil || len(raw) == 0 {
		return gitDir, nil
	}
	common := strings.TrimSpace(string(raw))
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	if _, err := os.Stat(common); err != nil {
		return "", fmt.Errorf("repository's commondir %s: %w", common, err)
	}
	return common, nil
}

func openAt(gitDir, common, root string) (*Repo, error) {
	var commonFS billy.Filesystem
	if common != gitDir {
		commonFS = osfs.New(common)
	}
	st := filesystem.NewStorage(dotgit.NewRepositoryFilesystem(osfs.New(gitDir), commonFS), cache.NewObjectLRUDefault())
	if _, err := st.Reference(plumbing.HEAD); err != nil {
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return nil, ErrNotExist
		}
		return nil, err
	}
	cfg, err := st.Config()
	if err != nil {
		return nil, err
	}
	// Read raw: go-git's parsed config keeps only a version of "1".
	var version string
	var extensions format.Options
	if cfg.Raw != nil {
		version = strings.TrimSpace(cfg.Raw.Section("core").Options.Get("repositoryformatversion"))
		if cfg.Raw.HasSection("extensions") {
			extensions = cfg.Raw.Section("extensions").Options
		}
	}
	if err := readable(version, extensions); err != nil {
		return nil, err
	}
	if cfg.Core.IsBare {
		root = "" // git refuses worktree reads here, and so do callers
	}
	return &Repo{Storer: st, GitDir: gitDir, CommonDir: common, Root: root}, nil
}

// readable refuses the repository formats go-git's storage would misread:
// format versions beyond 1, and the extensions that change how objects or
// references are stored. The others (worktreeConfig, partialClone,
// preciousObjects, noop) change nothing a reader sees.
func readable(version string, extensions format.Options) error {
	switch version {
	case "", "0", "1":
	default:
		return fmt.Errorf("unsupported core.repositoryformatversion %q", version)
	}
	for _, o := range extensions {
		switch strings.ToLower(o.Key) {
		case "objectformat":
			if v := strings.ToLower(o.Value); v != "" && v != "sha1" {
				return fmt.Errorf("unsupported extensions.objectformat %q", o.Value)
			}
		case "refstorage":
			if v := strings.ToLower(o.Value); v != "" && v != "files" {
				return fmt.Errorf("unsupported extensions.refstorage %q", o.Value)
			}
		case "compatobjectformat":
			return fmt.Errorf("unsupported extensions.compatobjectformat %q", o.Value)
		}
	}
	return nil
}

// CommitObject reads the commit h.
func (r *Repo) CommitObject(h plumbing.Hash) (*object.Commit, error) {
	return object.GetCommit(r.Storer, h)
}

// TreeObject reads the tree h.
func (r *Repo) TreeObject(h plumbing.Hash) (*object.Tree, error) { return object.GetTree(r.Storer, h) }

// BlobObject reads the blob h.
func (r *Repo) BlobObject(h plumbing.Hash) (*object.Blob, error) { return object.GetBlob(r.Storer, h) }

// TagObject reads the annotated tag h.
func (r *Repo) TagObject(h plumbing.Hash) (*object.Tag, error) { return object.GetTag(r.Storer, h) }

// Reference returns the reference name, followed to its target when
// resolved is true.
func (r *Repo) Reference(name plumbing.ReferenceName, resolved bool) (*plumbing.Reference, error) {
	if resolved {
		return storer.ResolveReference(r.Storer, name)
	}
	return r.Storer.Reference(name)
}
