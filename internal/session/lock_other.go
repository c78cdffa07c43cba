//go:build !unix

package session

import (
	"errors"
	"os"
)

// errLocked means another process holds the session's lock.
var errLocked = errors.New("session file is locked")

// lockFile is a no-op where advisory locks are unavailable; the Journal's
// mutex still serialises writers within one process.
func lockFile(*os.File) error { return nil }

// isLockedFile cannot tell without advisory locks.
func isLockedFile(string, bool) bool { return false }

// syncDir is a no-op: directories cannot be fsynced on this platform, and
// renames there are durable once the file itself is synced.
func syncDir(string) error { return nil }
