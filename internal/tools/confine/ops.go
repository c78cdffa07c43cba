package confine

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The path-level operations of a Set: each locates the root of an absolute
// path and performs the confined operation there.

// Open opens abs read-only (a file or a directory).
func (s *Set) Open(abs string) (*os.File, error) {
	r, rel, err := s.Locate(abs)
	if err != nil {
		return nil, err
	}
	return r.Open(rel)
}

// Stat describes abs without following a link.
func (s *Set) Stat(abs string) (fs.FileInfo, error) {
	r, rel, err := s.Locate(abs)
	if err != nil {
		return nil, err
	}
	return r.Stat(rel)
}

// ReadDir lists the directory abs in name order.
func (s *Set) ReadDir(abs string) ([]fs.DirEntry, error) {
	f, err := s.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readDirSorted(f)
}

// WriteAtomic replaces abs with data (see Root.WriteAtomic).
func (s *Set) WriteAtomic(abs string, data []byte, mode fs.FileMode) (fs.FileInfo, error) {
	r, rel, err := s.Locate(abs)
	if err != nil {
		return nil, err
	}
	return r.WriteAtomic(rel, data, mode)
}

// Remove deletes the file abs (a link itself, never its target).
func (s *Set) Remove(abs string) error {
	r, rel, err := s.Locate(abs)
	if err != nil {
		return err
	}
	return r.Remove(rel)
}

// RemoveDir deletes the empty directory abs.
func (s *Set) RemoveDir(abs string) error {
	r, rel, err := s.Locate(abs)
	if err != nil {
		return err
	}
	return r.RemoveDir(rel)
}

// MkdirAll creates the directory abs and its missing parents and returns the
// absolute paths it created, outermost first.
func (s *Set) MkdirAll(abs string, perm fs.FileMode) ([]string, error) {
	r, rel, err := s.Locate(abs)
	if err != nil {
		return nil, err
	}
	created, err := r.MkdirAll(rel, perm)
	for i, c := range created {
		created[i] = filepath.Join(r.path, c)
	}
	return created, err
}

// Chtimes sets the access and modification times of abs.
func (s *Set) Chtimes(abs string, atime, mtime time.Time) error {
	r, rel, err := s.Locate(abs)
	if err != nil {
		return err
	}
	return r.Chtimes(rel, atime, mtime)
}

// readDirSorted reads every entry of an open directory in name order.
func readDirSorted(f *os.File) ([]fs.DirEntry, error) {
	entries, err := f.ReadDir(-1)
	sortEntries(entries)
	return entries, err
}

func sortEntries(entries []fs.DirEntry) {
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}
