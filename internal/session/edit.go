package session

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/engine"
)

// Changes to a stored session that are not new messages — a cut of the
// history, a new title, archiving — are appended as lines of their own, so
// the file keeps everything it held before them.

var _ engine.HistoryCutter = (*Journal)(nil)

// Cut ends the stored history at its first keep messages (engine
// RewindHistory). It appends one line; the messages it drops stay in the
// file.
func (j *Journal) Cut(info engine.SessionInfo, keep int) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	w, err := j.writerFor(info, true)
	if err != nil {
		return err
	}
	if err := w.cut(info, keep); err != nil {
		j.drop()
		return err
	}
	return nil
}

// cut appends a cut line and the metadata as one durable write.
func (w *writer) cut(info engine.SessionInfo, keep int) error {
	if keep < 0 || keep > w.count {
		return fmt.Errorf("cutting a session of %d message(s) back to %d", w.count, keep)
	}
	var buf bytes.Buffer
	now := w.now()
	if err := w.put(&buf, &record{Type: lineCut, N: keep, At: now}); err != nil {
		return err
	}
	next := w.nextState(info, nil)
	if err := w.put(&buf, &record{Type: lineMeta, At: now, State: &next}); err != nil {
		return err
	}
	if err := w.writeSync(buf.Bytes()); err != nil {
		return err
	}
	w.count = keep
	w.state, w.seen = next, cloneUsage(info.Usage)
	w.stateJS, _ = encodeLine(&record{Type: lineMeta, State: &w.state})
	return nil
}

// edit appends a metadata line with change applied.
func (w *writer) edit(change func(*state)) error {
	next := w.state.clone()
	change(&next)
	line, err := encodeLine(&record{Type: lineMeta, At: w.now(), State: &next})
	if err != nil {
		return err
	}
	if err := w.writeSync(line); err != nil {
		return err
	}
	w.state = next
	w.stateJS, _ = encodeLine(&record{Type: lineMeta, State: &w.state})
	return nil
}

// ErrNoSession means no saved session has the id.
var ErrNoSession = errors.New("no saved session with that id")

// editSession changes the metadata of session id: through j's open writer
// when j is writing it (this process holds its lock), else under the
// session's lock, which a session another process is writing refuses
// (*BusyError).
func editSession(home string, j *Journal, id string, change func(*state)) error {
	if err := ValidID(id); err != nil {
		return err
	}
	if j != nil {
		j.mu.Lock()
		defer j.mu.Unlock()
		if j.cur != nil && j.cur.id == id {
			if err := j.cur.edit(change); err != nil {
				j.drop()
				return err
			}
			return nil
		}
	}
	o := Options{}
	if j != nil {
		o = j.opts
	}
	w, err := openWriter(Dir(home), &o, engine.SessionInfo{ID: id}, false)
	if err != nil {
		return err
	}
	if w == nil {
		return fmt.Errorf("session %s: %w", ShortID(id), ErrNoSession)
	}
	defer w.close()
	return w.edit(change)
}

// Rename sets a session's title (j: the host's journal, or nil). A blank
// title is refused; titles are one line of at most 100 characters.
func Rename(home string, j *Journal, id, title string) error {
	flat := strings.Join(strings.Fields(title), " ")
	if flat == "" {
		return errors.New("a session title cannot be empty")
	}
	return editSession(home, j, id, func(s *state) { s.Title = clip(flat, maxTitle) })
}

// Archive hides a session from listings (Query.Archived shows it), or with
// archived false shows it again. Nothing is deleted.
func Archive(home string, j *Journal, id string, archived bool) error {
	return editSession(home, j, id, func(s *state) { s.Archived = archived })
}
