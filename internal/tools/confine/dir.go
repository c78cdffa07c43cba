package confine

import (
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Dir is an open directory beneath a root, pinned for a sequence of
// operations on its entries: a mutation that loads a file, writes it and
// reads it back does all three in the same directory even if its name is
// swapped meanwhile. Its methods take absolute paths whose parent is the
// directory, so a Dir and a Set are interchangeable to callers.
type Dir struct {
	path string
	h    dirHandle
}

// OpenParent opens the directory that holds abs, beneath abs's root.
func (s *Set) OpenParent(abs string) (*Dir, error) {
	r, rel, err := s.Locate(abs)
	if err != nil {
		return nil, err
	}
	parent, _, err := splitRel(rel)
	if err != nil || rel == "" || rel == "." {
		return nil, pathError("open", abs, ErrEscape)
	}
	h, err := r.openDir(dirOrDot(parent))
	if err != nil {
		return nil, pathError("open", filepath.Dir(abs), err)
	}
	return &Dir{path: filepath.Dir(abs), h: h}, nil
}

func dirOrDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// Path is the directory's absolute path (as it was opened).
func (d *Dir) Path() string { return d.path }

// Close releases the directory.
func (d *Dir) Close() error { return d.h.close() }

// name checks that abs is an entry of d and returns its name.
func (d *Dir) name(op, abs string) (string, error) {
	if filepath.Dir(abs) != d.path {
		return "", pathError(op, abs, ErrEscape)
	}
	return filepath.Base(abs), nil
}

// Open opens the entry abs read-only (never through a link).
func (d *Dir) Open(abs string) (*os.File, error) {
	n, err := d.name("open", abs)
	if err != nil {
		return nil, err
	}
	f, err := d.h.open(n)
	return f, pathError("open", abs, err)
}

// Stat describes the entry abs itself.
func (d *Dir) Stat(abs string) (fs.FileInfo, error) {
	n, err := d.name("stat", abs)
	if err != nil {
		return nil, err
	}
	fi, err := d.h.stat(n)
	return fi, pathError("stat", abs, err)
}

// WriteAtomic replaces the entry abs with data: a temp file created in d,
// written, given mode, synced and renamed over abs within d. It returns the
// new file's state.
func (d *Dir) WriteAtomic(abs string, data []byte, mode fs.FileMode) (fs.FileInfo, error) {
	n, err := d.name("write", abs)
	if err != nil {
		return nil, err
	}
	fi, err := d.h.writeAtomic(n, data, mode, true)
	return fi, pathError("write", abs, err)
}

// Remove deletes the entry abs (a link itself, never its target).
func (d *Dir) Remove(abs string) error {
	n, err := d.name("remove", abs)
	if err != nil {
		return err
	}
	return pathError("remove", abs, d.h.remove(n))
}

// RemoveDir deletes the empty directory entry abs.
func (d *Dir) RemoveDir(abs string) error {
	n, err := d.name("remove", abs)
	if err != nil {
		return err
	}
	return pathError("remove", abs, d.h.removeDir(n))
}

// Chtimes sets the entry abs's access and modification times (the entry
// itself, never a link's target).
func (d *Dir) Chtimes(abs string, atime, mtime time.Time) error {
	n, err := d.name("chtimes", abs)
	if err != nil {
		return err
	}
	return pathError("chtimes", abs, d.h.chtimes(n, atime, mtime))
}
