// Package filelock takes advisory, exclusive, cross-process locks on files:
// the critical sections several codewhale processes may enter at once (the
// automation scheduler's due check) hold one.
package filelock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"
)

// ErrLocked means another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// Lock is a held lock; Unlock releases it.
type Lock struct{ f *os.File }

// Unlock releases the lock. It is safe to call on a nil Lock.
func (l *Lock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	unlock(l.f)
	l.f.Close()
	l.f = nil
}

// TryAcquire takes the lock on path without waiting (ErrLocked when held).
func TryAcquire(path string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := tryLock(f); err != nil {
		f.Close()
		return nil, err
	}
	return &Lock{f: f}, nil
}

// Acquire waits for the lock on path until ctx ends.
func Acquire(ctx context.Context, path string) (*Lock, error) {
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		l, err := TryAcquire(path)
		if !errors.Is(err, ErrLocked) {
			return l, err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
