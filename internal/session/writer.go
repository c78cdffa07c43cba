package session

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
)

const journalExt = ".jsonl"

// writer appends to one session's journal. It keeps what it needs to write
// the next lines (message count, last metadata snapshot, system prompt), so
// an append never reads the file.
type writer struct {
	dir, id, path string
	opts          *Options
	red           redactor

	own     *ownerLock // the session's one-writer lock, held for the writer's life
	f       *os.File   // open for append
	header  record
	count   int
	system  string
	state   state
	stateJS []byte         // the last meta snapshot written, to skip unchanged ones
	seen    provider.Usage // the engine's totals at the last call
	// imageBytes is what the session's images folder holds (-1: not yet
	// measured; images.go).
	imageBytes int64
	// repaired is what taking the file over repaired, until a host is told
	// (Journal.claim); nil when nothing was or it has been told.
	repaired *Repaired
}

// Repaired is what a writer repaired when it took over a damaged journal:
// what was dropped, and where the file as it was is kept.
type Repaired struct {
	Damage Damage
	Backup string
}

func (w *writer) now() time.Time { return w.opts.now().UTC() }

// openWriter opens the journal of info.ID for appending, creating it when
// create is set. It returns (nil, nil) when the session has no file and
// create is false. A damaged journal is backed up and rewritten from what
// could be recovered, so new lines never follow a partial one.
func openWriter(dir string, o *Options, info engine.SessionInfo, create bool) (*writer, error) {
	if err := ValidID(info.ID); err != nil {
		return nil, err
	}
	w := &writer{dir: dir, id: info.ID, path: filepath.Join(dir, info.ID+journalExt), opts: o, red: newRedactor(o.Secrets),
		imageBytes: -1}
	if !create {
		if _, err := os.Stat(w.path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	// The lock comes first, so what is read below cannot change under us.
	own, err := acquireOwner(dir, info.ID)
	if err != nil {
		return nil, err
	}
	w.own = own
	j, err := readJournal(w.path)
	switch {
	case err == nil:
		if err := w.resume(j); err != nil {
			w.close()
			return nil, err
		}
		return w, nil
	case !errors.Is(err, fs.ErrNotExist):
		w.close()
		return nil, err
	case !create:
		w.close()
		return nil, nil
	}
	if err := w.create(info); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// create writes a new journal's header.
func (w *writer) create(info engine.SessionInfo) error {
	o := w.opts
	now := w.now()
	w.header = record{Type: lineHeader, SchemaVersion: SchemaVersion, ID: info.ID, CreatedAt: now, Parent: o.ParentSessionID}
	if info.Parent != "" {
		w.header.Parent = info.Parent // a fork
	}
	w.state = state{Model: info.Model, ModelProvider: o.Provider, Workspace: info.Workspace, Mode: info.Mode.String()}
	st := w.state.clone()
	w.header.State = &st
	line, err := encodeLine(&w.header)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("creating session file: %w", err)
	}
	w.f = f
	if err := w.writeSync(line); err != nil {
		return err
	}
	if err := syncDir(w.dir); err != nil {
		return err
	}
	w.stateJS, _ = encodeLine(&record{Type: lineMeta, State: &w.state})
	return nil
}

// resume takes over an existing journal.
func (w *writer) resume(j *journal) error {
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("opening session file: %w", err)
	}
	w.f = f
	w.header, w.count, w.system, w.state = j.header, len(j.messages), j.system, j.state.clone()
	w.header.Type, w.header.SchemaVersion = lineHeader, SchemaVersion
	w.seen = cloneUsage(j.state.Usage)
	w.stateJS, _ = encodeLine(&record{Type: lineMeta, State: &w.state})
	if !j.damage.Any() {
		return nil
	}
	backup, err := backupDamaged(w.path, w.now())
	if err != nil {
		return err
	}
	if err := w.replace(j.messages, j.system); err != nil {
		return err
	}
	w.repaired = &Repaired{Damage: j.damage, Backup: backup}
	return nil
}

// close closes the journal and gives the session's lock up.
func (w *writer) close() error {
	var err error
	if w.f != nil {
		err = w.f.Close()
		w.f = nil
	}
	w.own.release()
	w.own = nil
	return err
}

// writeSync appends b with one write and makes it durable.
func (w *writer) writeSync(b []byte) error {
	if _, err := w.f.Write(b); err != nil {
		return fmt.Errorf("writing session file %s: %w", w.path, err)
	}
	if w.opts.noSync {
		return nil
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("syncing session file %s: %w", w.path, err)
	}
	return nil
}

// append records msgs and the metadata in info as one durable write.
func (w *writer) append(info engine.SessionInfo, msgs []provider.Message) error {
	var buf bytes.Buffer
	now := w.now()
	if sys := w.red.text(info.SystemPrompt); sys != w.system && info.SystemPrompt != "" {
		if err := w.put(&buf, &record{Type: lineSystem, At: now, Text: &sys}); err != nil {
			return err
		}
		w.system = sys
	}
	stored := make([]provider.Message, len(msgs))
	for i, m := range msgs {
		var err error
		if stored[i], err = w.store(m); err != nil {
			return err
		}
		if err := w.put(&buf, &record{Type: lineMessage, N: w.count + i + 1, At: now, Message: &stored[i]}); err != nil {
			return err
		}
	}
	next := w.nextState(info, stored)
	meta, err := encodeLine(&record{Type: lineMeta, State: &next})
	if err != nil {
		return err
	}
	changed := !bytes.Equal(meta, w.stateJS)
	if changed {
		if err := w.put(&buf, &record{Type: lineMeta, At: now, State: &next}); err != nil {
			return err
		}
	}
	if buf.Len() == 0 {
		return nil
	}
	if err := w.writeSync(buf.Bytes()); err != nil {
		return err
	}
	w.count += len(msgs)
	w.state, w.stateJS, w.seen = next, meta, cloneUsage(info.Usage)
	return nil
}

// compacted appends a compaction record and the metadata as one durable
// write.
func (w *writer) compacted(info engine.SessionInfo, replaced int, summary provider.Message) error {
	if replaced <= 0 || replaced > w.count {
		return fmt.Errorf("compaction of %d message(s) in a session of %d", replaced, w.count)
	}
	var buf bytes.Buffer
	stored, err := w.store(summary)
	if err != nil {
		return err
	}
	count := w.count - replaced + 1
	if err := w.put(&buf, &record{Type: lineCompaction, N: count, Replaced: replaced, At: w.now(), Message: &stored}); err != nil {
		return err
	}
	next := w.nextState(info, nil)
	if err := w.put(&buf, &record{Type: lineMeta, At: w.now(), State: &next}); err != nil {
		return err
	}
	if err := w.writeSync(buf.Bytes()); err != nil {
		return err
	}
	w.count = count
	w.state, w.seen = next, cloneUsage(info.Usage)
	w.stateJS, _ = encodeLine(&record{Type: lineMeta, State: &w.state})
	return nil
}

// store is m as the file keeps it: redacted, its images' bytes in the
// session's images folder.
func (w *writer) store(m provider.Message) (provider.Message, error) {
	return w.keepImages(w.red.message(m))
}

func (w *writer) put(buf *bytes.Buffer, r *record) error {
	line, err := encodeLine(r)
	if err == nil {
		buf.Write(line)
	}
	return err
}

// nextState is the metadata after info and the newly stored messages. Usage
// and cost grow by what the engine's totals grew since the last call; if the
// totals went down (a host that did not restore them on resume), the new
// totals are all new usage.
func (w *writer) nextState(info engine.SessionInfo, stored []provider.Message) state {
	next := w.state.clone()
	if next.Title == "" {
		next.Title, next.Preview = titleAndPreview(stored)
	}
	if info.Model != "" {
		next.Model = info.Model
	}
	if info.Workspace != "" {
		next.Workspace = info.Workspace
	}
	if w.opts.Provider != "" {
		next.ModelProvider = w.opts.Provider
	}
	next.Mode = info.Mode.String()
	delta, ok := usageSince(info.Usage, w.seen)
	if !ok {
		delta = cloneUsage(info.Usage)
	}
	if !usageZero(delta) {
		next.Usage.Add(&delta)
		next.Cost += Cost(next.Model, delta, w.opts.Pricing)
	}
	return next
}
