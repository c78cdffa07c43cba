//go:build unix

package session

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// errLocked means another process holds the session's lock.
var errLocked = errors.New("session file is locked")

// tryLock takes a non-blocking exclusive advisory lock on f.
func tryLock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// lockFile takes the lock on f for as long as f stays open.
//
// A lock this process has just released can stay held for a moment: a child
// forked meanwhile (a Bash job, git) shares the open file until its exec
// closes it. So a busy lock is retried for up to lockWait before it counts as
// another process's.
func lockFile(f *os.File) error {
	deadline := time.Now().Add(lockWait)
	for {
		err := tryLock(f)
		if err != errLocked || time.Now().After(deadline) {
			return err
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// On a loaded machine a forked child can wait long to be scheduled for its
// exec, so the wait is generous; it only delays refusing a real holder.
const lockWait = time.Second

// isLockedFile reports whether some process holds the lock on path. With
// wait it waits as lockFile does, so a lock a closed journal left to a child
// mid fork-exec is not "open in a running codewhale"; without, it answers at
// once (Prune, where a skipped session is pruned next time).
func isLockedFile(path string, wait bool) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	lock := tryLock
	if wait {
		lock = lockFile
	}
	if err := lock(f); err != nil {
		return true
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// syncDir makes a rename or a new file in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}
