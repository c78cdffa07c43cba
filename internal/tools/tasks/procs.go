package tasks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/filelock"
)

// Several codewhale processes can open one store (a TUI, `codewhale
// automation run-due`, an exec that creates tasks). Two file locks keep
// them from harming each other's work:
//   - write.lock is held for every file write and for loading, so no process
//     finishes, quarantines or overwrites a staged file another is writing;
//   - runner.lock is held by the one process whose runner executes the
//     queue, so no other process fails its running tasks as left over from
//     a crash, and no task is run twice.
// Records a process changes while another has the store open are not
// merged into the other's memory: only the runner should change task
// states.

const writeLockWait = 10 * time.Second

func (s *Store) writeLockPath() string  { return filepath.Join(s.dir, "write.lock") }
func (s *Store) runnerLockPath() string { return filepath.Join(s.dir, "runner.lock") }

// withWriteLock runs fn holding the store's write lock across processes.
func (s *Store) withWriteLock(fn func() error) error {
	ctx, cancel := context.WithTimeout(context.Background(), writeLockWait)
	defer cancel()
	l, err := filelock.Acquire(ctx, s.writeLockPath())
	if err != nil {
		return fmt.Errorf("task store: another process holds %s: %w", s.writeLockPath(), err)
	}
	defer l.Unlock()
	s.holdingWrite = true
	defer func() { s.holdingWrite = false }()
	return fn()
}

// writeLocked is withWriteLock, unless this store already holds it (a
// write during load).
func (s *Store) writeLocked(fn func() error) error {
	if s.holdingWrite {
		return fn()
	}
	return s.withWriteLock(fn)
}

// ErrRunnerElsewhere means another process runs this store's queue.
var ErrRunnerElsewhere = errors.New("another codewhale process runs this task queue")

// claimRunner takes runner.lock for this process, recording its pid.
func (s *Store) claimRunner() (*filelock.Lock, error) {
	l, err := filelock.TryAcquire(s.runnerLockPath())
	if errors.Is(err, filelock.ErrLocked) {
		pid := "unknown"
		if data, rerr := os.ReadFile(s.runnerLockPath() + ".pid"); rerr == nil {
			pid = strings.TrimSpace(string(data))
		}
		return nil, fmt.Errorf("%w (pid %s); its runner executes queued tasks", ErrRunnerElsewhere, pid)
	}
	if err != nil {
		return nil, err
	}
	_ = os.WriteFile(s.runnerLockPath()+".pid", []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	return l, nil
}

// runnerElsewhere reports whether another process's runner owns the queue
// (so tasks found running are its, not a crash's).
func (s *Store) runnerElsewhere() bool {
	if s.runLock != nil {
		return false
	}
	l, err := filelock.TryAcquire(s.runnerLockPath())
	if err != nil {
		return errors.Is(err, filelock.ErrLocked)
	}
	l.Unlock()
	return false
}
