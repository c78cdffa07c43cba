//go:build !unix

package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// dirHandle is an os.Root: the standard library's confined directory, which
// re-checks every component against the opened root (it follows links only
// while they stay inside).
type dirHandle struct{ root *os.Root }

func openHandle(path string) (dirHandle, error) {
	r, err := os.OpenRoot(path)
	return dirHandle{root: r}, err
}

func (d dirHandle) close() error { return d.root.Close() }

func native(rel string) (string, error) {
	if _, _, err := splitRel(rel); err != nil {
		return "", err
	}
	return filepath.Clean(filepath.FromSlash(rel)), nil
}

func (r *Root) openDir(rel string) (dirHandle, error) {
	n, err := native(rel)
	if err != nil {
		return dirHandle{}, err
	}
	sub, err := r.h.root.OpenRoot(n)
	return dirHandle{root: sub}, err
}

// Open opens rel read-only: a file or a directory.
func (r *Root) Open(rel string) (*os.File, error) {
	n, err := native(rel)
	if err != nil {
		return nil, pathError("open", r.abs(rel), err)
	}
	return r.h.root.Open(n)
}

// Stat describes rel itself (it is never followed).
func (r *Root) Stat(rel string) (fs.FileInfo, error) {
	n, err := native(rel)
	if err != nil {
		return nil, pathError("stat", r.abs(rel), err)
	}
	return r.h.root.Lstat(n)
}

// WriteAtomic replaces rel with data through a temp file in its directory
// renamed over it.
func (r *Root) WriteAtomic(rel string, data []byte, mode fs.FileMode) (fs.FileInfo, error) {
	return r.replace(rel, data, mode, true)
}

// WriteScratch is WriteAtomic without the sync to disk: for a tool's
// scratch files, which need not survive a crash.
func (r *Root) WriteScratch(rel string, data []byte, mode fs.FileMode) (fs.FileInfo, error) {
	return r.replace(rel, data, mode, false)
}

func (r *Root) replace(rel string, data []byte, mode fs.FileMode, sync durable) (fs.FileInfo, error) {
	n, err := native(rel)
	if err != nil {
		return nil, pathError("write", r.abs(rel), err)
	}
	return r.h.writeAtomic(n, data, mode, sync)
}

// Remove deletes the file rel.
func (r *Root) Remove(rel string) error {
	n, err := native(rel)
	if err != nil {
		return pathError("remove", r.abs(rel), err)
	}
	return r.h.root.Remove(n)
}

// RemoveDir deletes the empty directory rel.
func (r *Root) RemoveDir(rel string) error { return r.Remove(rel) }

// MkdirAll creates the directory rel and its missing parents and returns the
// ones it created (relative, outermost first).
func (r *Root) MkdirAll(rel string, perm fs.FileMode) ([]string, error) {
	n, err := native(rel)
	if err != nil {
		return nil, pathError("mkdir", r.abs(rel), err)
	}
	var missing []string
	for d := n; d != "." && d != ""; d = filepath.Dir(d) {
		if _, err := r.h.root.Lstat(d); err == nil {
			break
		}
		missing = append([]string{d}, missing...)
	}
	if len(missing) == 0 {
		return nil, nil
	}
	return missing, r.h.root.MkdirAll(n, perm)
}

// Chtimes sets rel's access and modification times.
func (r *Root) Chtimes(rel string, atime, mtime time.Time) error {
	n, err := native(rel)
	if err != nil {
		return pathError("chtimes", r.abs(rel), err)
	}
	return r.h.root.Chtimes(n, atime, mtime)
}

func (d dirHandle) open(name string) (*os.File, error)    { return d.root.Open(name) }
func (d dirHandle) stat(name string) (fs.FileInfo, error) { return d.root.Lstat(name) }
func (d dirHandle) remove(name string) error              { return d.root.Remove(name) }
func (d dirHandle) removeDir(name string) error           { return d.root.Remove(name) }

func (d dirHandle) chtimes(name string, atime, mtime time.Time) error {
	return d.root.Chtimes(name, atime, mtime)
}

// writeAtomic replaces name (a path relative to d) through a temp file in
// the same directory renamed over it.
func (d dirHandle) writeAtomic(name string, data []byte, mode fs.FileMode, sync durable) (fs.FileInfo, error) {
	dir, base := filepath.Split(name)
	var tmp string
	var f *os.File
	var err error
	for range 100 {
		tmp = filepath.Join(dir, tempName(base))
		f, err = d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	fi, err := fill(f, data, mode, sync)
	if err == nil {
		err = d.root.Rename(tmp, name)
	}
	if err != nil {
		_ = d.root.Remove(tmp)
		return nil, err
	}
	return fi, nil
}
