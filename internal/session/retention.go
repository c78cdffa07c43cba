package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/codewhale/codewhale/internal/config"
)

// Prune applies the opt-in retention policy (CONTRACT.md §15.23): beyond the
// newest MaxSessions, and older than MaxAgeDays by last update, sessions are
// deleted. It never deletes keep (the session being written), a session
// another process holds open, or one written by a newer codewhale. Zero
// limits keep everything. It returns the deleted ids.
func Prune(home string, r config.Retention, keep string, now time.Time) ([]string, error) {
	if r.MaxSessions <= 0 && r.MaxAgeDays <= 0 {
		return nil, nil
	}
	all, err := List(home, Query{Archived: true})
	if err != nil {
		return nil, err
	}
	cutoff := now.Add(-time.Duration(r.MaxAgeDays) * 24 * time.Hour)
	var deleted []string
	var errs []error
	for i, m := range all {
		tooMany := r.MaxSessions > 0 && i >= r.MaxSessions
		tooOld := r.MaxAgeDays > 0 && m.UpdatedAt.Before(cutoff)
		if !tooMany && !tooOld || m.ID == keep || m.NewerSchema > 0 {
			continue
		}
		path := filepath.Join(Dir(home), m.ID+journalExt)
		if isLocked(Dir(home), m.ID) {
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("pruning session %s: %w", m.ID, err))
			continue
		}
		_ = os.Remove(lockPath(Dir(home), m.ID))
		_ = os.RemoveAll(imageDir(Dir(home), m.ID))
		deleted = append(deleted, m.ID)
	}
	return deleted, errors.Join(errs...)
}

// Delete removes one saved session. A session a process holds open (this
// one's current session included) is refused, as Prune refuses it.
func Delete(home, id string) error {
	dir := Dir(home)
	if isLockedWait(dir, id) {
		return fmt.Errorf("session %s is open in a running codewhale; close it there first", ShortID(id))
	}
	if err := os.Remove(filepath.Join(dir, id+journalExt)); err != nil {
		return fmt.Errorf("deleting session %s: %w", ShortID(id), err)
	}
	_ = os.Remove(lockPath(dir, id))
	_ = os.RemoveAll(imageDir(dir, id))
	return nil
}
