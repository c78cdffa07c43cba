//go:build unix

package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// locked runs fn holding an exclusive lock on memory/.memory.lock, so
// writers in this and other codewhale processes never interleave.
func (s *Store) locked(fn func() error) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("create memory directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(s.dir, ".memory.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("lock memory: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock memory: %w", err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return fn()
}
