package session

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
)

// rewrite replaces the history with msgs (compaction, a persisted
// SyncSession).
func (w *writer) rewrite(info engine.SessionInfo, msgs []provider.Message) error {
	stored := make([]provider.Message, len(msgs))
	for i, m := range msgs {
		var err error
		if stored[i], err = w.store(m); err != nil {
			return err
		}
	}
	next := w.nextState(info, stored)
	sys := w.system
	if info.SystemPrompt != "" {
		sys = w.red.text(info.SystemPrompt)
	}
	if err := w.replaceWith(stored, sys, next); err != nil {
		return err
	}
	w.seen = cloneUsage(info.Usage)
	return nil
}

// replace rewrites the file with already-stored messages and the current
// metadata (repairing a damaged journal).
func (w *writer) replace(stored []provider.Message, system string) error {
	return w.replaceWith(stored, system, w.state.clone())
}

// replaceWith writes a complete journal to a temporary file, makes it
// durable, takes the lock on it and renames it over the old one, so a crash
// leaves either the old file or the new one.
func (w *writer) replaceWith(stored []provider.Message, system string, st state) error {
	now := w.now()
	var buf bytes.Buffer
	hdr := w.header
	hdrState := st.clone()
	hdr.State = &hdrState
	if err := w.put(&buf, &hdr); err != nil {
		return err
	}
	if system != "" {
		if err := w.put(&buf, &record{Type: lineSystem, At: now, Text: &system}); err != nil {
			return err
		}
	}
	for i := range stored {
		if err := w.put(&buf, &record{Type: lineMessage, N: i + 1, At: now, Message: &stored[i]}); err != nil {
			return err
		}
	}
	if err := w.put(&buf, &record{Type: lineMeta, At: now, State: &st}); err != nil {
		return err
	}
	f, err := w.writeTemp(buf.Bytes())
	if err != nil {
		return err
	}
	old := w.f
	w.f = f
	if old != nil {
		old.Close()
	}
	w.count, w.system, w.state = len(stored), system, st
	w.stateJS, _ = encodeLine(&record{Type: lineMeta, State: &w.state})
	return nil
}

// writeTemp writes data to a fresh file and renames it to w.path.
func (w *writer) writeTemp(data []byte) (*os.File, error) {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := w.path + ".tmp-" + hex.EncodeToString(rnd[:])
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("rewriting session file: %w", err)
	}
	fail := func(err error) (*os.File, error) {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("rewriting session file %s: %w", w.path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if !w.opts.noSync {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := os.Rename(tmp, w.path); err != nil {
		return fail(err)
	}
	if err := syncDir(w.dir); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// backupDamaged keeps the damaged journal's bytes beside it before the
// journal is rewritten — a hard link when possible, else a copy — and
// returns the copy's path.
func backupDamaged(path string, now time.Time) (string, error) {
	dst := fmt.Sprintf("%s.damaged-%s", path, now.Format("20060102T150405.000000000Z"))
	if err := os.Link(path, dst); err == nil {
		return dst, syncDir(filepath.Dir(path))
	}
	src, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("backing up damaged session %s: %w", path, err)
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", fmt.Errorf("backing up damaged session %s: %w", path, err)
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return "", fmt.Errorf("backing up damaged session %s: %w", path, err)
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return "", fmt.Errorf("backing up damaged session %s: %w", path, err)
	}
	return dst, out.Close()
}
