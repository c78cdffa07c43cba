package file

import (
	"io/fs"
	"sync"
	"time"
)

// ReadStamps is a session's read-before-edit store: for each resolved path the
// (size, mtime) seen by the last successful read, write or edit. All File
// calls of a session, and the apply_patch alias, share one store, so it is
// created once per session and outlives the per-turn registries.
type ReadStamps struct {
	mu sync.Mutex
	m  map[string]stamp
}

type stamp struct {
	size  int64
	mtime time.Time
}

// NewReadStamps returns an empty store.
func NewReadStamps() *ReadStamps { return &ReadStamps{m: map[string]stamp{}} }

// Record stores fi's (size, mtime) for the resolved path abs.
func (s *ReadStamps) Record(abs string, fi fs.FileInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[abs] = stamp{size: fi.Size(), mtime: fi.ModTime()}
}

// Forget drops the snapshot of abs (the file was deleted).
func (s *ReadStamps) Forget(abs string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, abs)
}

// Has reports whether abs has a snapshot.
func (s *ReadStamps) Has(abs string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[abs]
	return ok
}

// freshness is the read-before-edit state of a path.
type freshness int

const (
	neverRead freshness = iota
	changed
	fresh
)

// check compares the snapshot of abs with fi, the file's current state (nil
// when it no longer exists).
func (s *ReadStamps) check(abs string, fi fs.FileInfo) freshness {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.m[abs]
	switch {
	case !ok:
		return neverRead
	case fi == nil || fi.Size() != st.size || !fi.ModTime().Equal(st.mtime):
		return changed
	}
	return fresh
}
