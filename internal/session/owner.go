package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A session has one writer. The writer holds an advisory lock on
// sessions/<id>.lock, a file beside the journal that records the holder's
// pid. A separate file keeps the lock's identity across the journal's
// atomic rewrites (a rename replaces the journal's inode) and lets a
// refusal say who holds it. Lock files are never deleted while a session
// exists (deleting one would let two processes lock different inodes of
// the same path); pruning a session removes its lock file with it.

const lockExt = ".lock"

// BusyError is a session another process is writing. Nothing was sent or
// written; the caller stops before the turn.
type BusyError struct {
	ID  string
	PID int // 0 when the holder did not record one
}

func (e *BusyError) Error() string {
	who := "another codewhale process"
	if e.PID > 0 {
		who = fmt.Sprintf("another codewhale process (pid %d)", e.PID)
	}
	return fmt.Sprintf("session %s is being written by %s; nothing was sent. Continue it there, wait until that process exits, or start a new session",
		e.ID, who)
}

// ErrBusy matches a *BusyError with errors.Is.
var ErrBusy = errors.New("session is being written by another process")

func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// ownerLock is a held session lock.
type ownerLock struct{ f *os.File }

func lockPath(dir, id string) string { return filepath.Join(dir, id+lockExt) }

// acquireOwner takes the one-writer lock of session id and records this
// process's pid in it; a session another process holds is a *BusyError.
func acquireOwner(dir, id string) (*ownerLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the sessions directory: %w", err)
	}
	path := lockPath(dir, id)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening session lock %s: %w", path, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, &BusyError{ID: id, PID: holderPID(path)}
		}
		return nil, fmt.Errorf("locking session %s: %w", id, err)
	}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt(pid, 0)
	}
	return &ownerLock{f: f}, nil
}

// release gives the lock up. The pid stays in the file; it is only read
// while the lock is held by someone.
func (l *ownerLock) release() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// holderPID reads the pid recorded in a lock file, or 0.
func holderPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// isLocked reports whether another process holds session id's lock.
func isLocked(dir, id string) bool { return isLockedFile(lockPath(dir, id), false) }

// isLockedWait is isLocked for a person's Delete: it waits out a lock a
// child mid fork-exec still shares (lock_unix.go).
func isLockedWait(dir, id string) bool { return isLockedFile(lockPath(dir, id), true) }

// ResolveOwned is Resolve for a host that will write the session: it
// claims the session's one-writer lock through j (a *BusyError when another
// process holds it) and then loads it again, so the history it returns is
// the one on disk once the lock is held. Taking a damaged file over
// repairs it between the two loads; what the repair dropped and where the
// damaged file is kept are carried over (Loaded.Damage, Loaded.Backup), so
// the host reports them once (issue 23 §8). With a nil j it is Resolve.
func ResolveOwned(j *Journal, home, workspace, ref string, latest bool) (*Loaded, error) {
	l, err := Resolve(home, workspace, ref, latest)
	if err != nil || j == nil {
		return l, err
	}
	repaired, err := j.claim(l.Meta.ID)
	if err != nil {
		return nil, err
	}
	if l, err = Resolve(home, workspace, l.Meta.ID, false); err != nil {
		return nil, err
	}
	if repaired != nil {
		l.Damage, l.Backup = repaired.Damage, repaired.Backup
	}
	return l, nil
}
