// Package confine performs file operations beneath a root directory in one
// step with the check that they stay there: every path is opened relative
// to an open descriptor of the root and may not pass through a symbolic
// link, so a directory swapped for a link between a check and a use makes
// the use fail instead of landing outside (CONTRACT.md §5; issue 11 §4).
//
// On Linux a path is opened with a single openat2(RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS). Where openat2 is missing
// (other Unixes, old kernels, seccomp filters) the same guarantee comes from
// an openat walk with O_NOFOLLOW on every component. Elsewhere (Windows) an
// os.Root confines the operations; it follows links that stay inside.
//
// Paths given to a Root are relative, '/'-or-separator separated, and
// canonical: no "..", no symbolic link in any component. Callers resolve a
// model's path to that form first (tools.Context.ResolvePath); a link met
// here means the tree changed since, and the operation is refused with
// ErrSymlink.
package confine

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
)

var (
	// ErrEscape is returned for a path that leaves the root.
	ErrEscape = errors.New("the path leaves the confined directory")
	// ErrSymlink is returned when a component of a path is a symbolic link:
	// the canonical path a caller checked no longer describes the tree.
	ErrSymlink = errors.New("a component of the path is a symbolic link (the tree changed while it was being opened)")
)

// Root is an open directory that operations are confined beneath. It is
// safe for concurrent use.
type Root struct {
	path string
	h    dirHandle
}

// OpenRoot opens the directory path (absolute and canonical).
func OpenRoot(path string) (*Root, error) {
	h, err := openHandle(path)
	if err != nil {
		return nil, err
	}
	return &Root{path: filepath.Clean(path), h: h}, nil
}

// Path is the root's absolute path.
func (r *Root) Path() string { return r.path }

// Close releases the root's descriptor.
func (r *Root) Close() error { return r.h.close() }

// abs names rel inside the root, for error messages.
func (r *Root) abs(rel string) string {
	if rel == "" || rel == "." {
		return r.path
	}
	return filepath.Join(r.path, rel)
}

// splitRel cleans rel and splits it into its parent and last component. An
// empty or "." rel names the root itself (parent "", base ".").
func splitRel(rel string) (parent, base string, err error) {
	rel = filepath.Clean(filepath.FromSlash(rel))
	if rel == "." {
		return "", ".", nil
	}
	if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "", ErrEscape
	}
	dir, base := filepath.Split(rel)
	return strings.TrimSuffix(dir, string(filepath.Separator)), base, nil
}

// pathError wraps err the way os does, naming the absolute path.
func pathError(op, path string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}

// Set is the roots of one boundary (a workspace and its trusted roots),
// opened on first use. An absolute path belongs to the deepest root that
// contains it. It is safe for concurrent use; Close releases the roots.
type Set struct {
	paths []string
	mu    sync.RWMutex // a content search locates from every worker
	open  map[string]*Root
}

// NewSet returns the set of the given canonical absolute roots; empty
// entries are ignored.
func NewSet(roots ...string) *Set {
	s := &Set{open: map[string]*Root{}}
	for _, r := range roots {
		if r != "" {
			s.paths = append(s.paths, filepath.Clean(r))
		}
	}
	return s
}

// Close releases every root opened so far.
func (s *Set) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for k, r := range s.open {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
		delete(s.open, k)
	}
	return first
}

// Locate returns the root abs belongs to and abs relative to it.
func (s *Set) Locate(abs string) (*Root, string, error) {
	best := ""
	for _, p := range s.paths {
		if within(abs, p) && len(p) > len(best) {
			best = p
		}
	}
	if best == "" {
		return nil, "", pathError("open", abs, ErrEscape)
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(abs, best), string(filepath.Separator))
	s.mu.RLock()
	r := s.open[best]
	s.mu.RUnlock()
	if r != nil {
		return r, rel, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.open[best]; r != nil {
		return r, rel, nil
	}
	r, err := OpenRoot(best)
	if err != nil {
		return nil, "", err
	}
	s.open[best] = r
	return r, rel, nil
}

func within(p, root string) bool {
	if p == root {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}
