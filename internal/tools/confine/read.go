package confine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/codewhale/codewhale/internal/secrets"
)

// The one reader of a file the agent reads on the model's behalf: a path
// the model named (File, rlm open, load_skill) or a file in the workspace
// the model could have written or swapped (project instructions, commands,
// skills, a repository's hooks, checkpoints' excludes). Each resolves the
// path to its canonical form and checks it first (the boundary, the secret
// guard); the bytes then come from an open beneath a root through no
// symbolic link, so a name swapped for a link between the check and the
// open fails instead of reading outside (CONTRACT.md §5). Opening a checked
// name again with os.Open is the race this closes; internal/archtest
// (TestModelReadsGoThroughConfine) keeps it closed.

// ErrNotRegular is returned for a path that is a directory, a device, a
// FIFO or a socket: only regular files are read.
var ErrNotRegular = errors.New("not a regular file")

// SecretError is the refusal of a path the secret guard names: nothing
// was opened.
type SecretError struct {
	Path   string
	Reason string // what the location holds (internal/secrets)
}

func (e *SecretError) Error() string {
	return fmt.Sprintf("%s is %s; it is not read", e.Path, e.Reason)
}

// ReadFile reads the regular file abs — absolute, canonical (symbolic
// links resolved by the caller's check) and beneath one of roots — unless
// the secret guard (internal/secrets) names it: then a *SecretError, and
// nothing is opened. At most limit bytes are read (limit <= 0: the whole
// file); fi is the opened file's state, so its Size is the whole file's.
func ReadFile(roots []string, abs string, limit int64) (data []byte, fi fs.FileInfo, err error) {
	if reason, secret := secrets.IsSecretPath(abs); secret {
		return nil, nil, &SecretError{Path: abs, Reason: reason}
	}
	s := NewSet(roots...)
	defer s.Close()
	return s.ReadFile(abs, limit)
}

// ReadBeneath reads the file path (absolute) when, its symbolic links
// resolved, it lies beneath root (resolved too): ReadFile of the resolved
// path, for a file at a fixed place in the workspace (a project's
// configuration, hooks, rules). A file that links out of root is ErrEscape,
// a missing one fs.ErrNotExist.
func ReadBeneath(root, path string, limit int64) ([]byte, fs.FileInfo, error) {
	return ReadFile([]string{Resolve(root)}, Resolve(path), limit)
}

// Resolve is p with its symbolic links resolved; for a path that does not
// exist, its deepest existing ancestor's, with the rest appended. It is a
// check's input, never a capability: the open that follows goes through
// the boundary.
func Resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if d := filepath.Dir(p); d != p {
		return filepath.Join(Resolve(d), filepath.Base(p))
	}
	return p
}

// ReadFile reads the regular file abs (absolute, canonical) through the
// boundary: opened beneath its root through no symbolic link, its state
// taken from the open handle. At most limit bytes are read (limit <= 0: the
// whole file). It does not consult the secret guard: callers that have
// their own (File, project context) check before they call it.
func (s *Set) ReadFile(abs string, limit int64) (data []byte, fi fs.FileInfo, err error) {
	f, err := s.Open(abs)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, pathError("read", abs, ErrNotRegular)
	}
	size := fi.Size()
	if limit > 0 {
		size = min(size, limit)
	}
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit)
	}
	data, err = readAll(r, size)
	if err != nil {
		return nil, fi, pathError("read", abs, err)
	}
	return data, fi, nil
}

// readAll reads r to EOF into a buffer sized from the stat (the file may
// still grow or shrink), as os.ReadFile does.
func readAll(r io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, 0, max(size, 0)+1)
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}
