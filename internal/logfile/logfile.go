// Package logfile is codewhale's diagnostic log: log/slog records written to
// $CODEWHALE_HOME/logs/codewhale.log, the file rotated by size, and every
// record passed through internal/secrets' redactor before it reaches the
// disk, so no key or token the process knows of is ever logged.
//
// Several codewhale processes may share the file: each appends whole
// records (O_APPEND, one write per record), and the one that finds the
// file over the limit renames it aside; a process still holding the old
// file writes its last records there until it next rotates.
package logfile

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/codewhale/codewhale/internal/secrets"
)

// Defaults: the size at which the file is rotated and how many rotated
// files are kept (codewhale.log.1 is the newest).
const (
	DefaultMaxBytes = 5 << 20
	DefaultKeep     = 3
)

// Path is the log file of the CodeWhale home.
func Path(home string) string { return filepath.Join(home, "logs", "codewhale.log") }

// Options say where and how much to log. Zero values work but Home.
type Options struct {
	Home     string
	Level    slog.Level // slog.LevelInfo by default; --debug lowers it
	MaxBytes int64
	Keep     int
	// Redact replaces secrets in each formatted record (secrets.Redact
	// when nil).
	Redact func(string) string
}

// Writer is the rotating, redacting file behind a Logger; Close ends it.
type Writer struct {
	mu     sync.Mutex
	path   string
	max    int64
	keep   int
	redact func(string) string
	f      *os.File
	size   int64
}

// Open creates the logs directory and returns a logger writing there, and
// the writer to close at exit.
func Open(o Options) (*slog.Logger, *Writer, error) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Keep <= 0 {
		o.Keep = DefaultKeep
	}
	if o.Redact == nil {
		o.Redact = secrets.Redact
	}
	w := &Writer{path: Path(o.Home), max: o.MaxBytes, keep: o.Keep, redact: o.Redact}
	if err := os.MkdirAll(filepath.Dir(w.path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("log: %w", err)
	}
	if err := w.open(); err != nil {
		return nil, nil, err
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: o.Level})), w, nil
}

func (w *Writer) open() error {
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("log: %w", err)
	}
	w.f, w.size = f, st.Size()
	return nil
}

// Write takes one formatted record (slog's handlers write each record in
// one call), redacts it and appends it, rotating first when it would take
// the file over the limit.
func (w *Writer) Write(p []byte) (int, error) {
	rec := []byte(w.redact(string(p)))
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return 0, os.ErrClosed
	}
	if w.size > 0 && w.size+int64(len(rec)) > w.max {
		if err := w.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := w.f.Write(rec)
	w.size += int64(n)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// rotate shifts codewhale.log.N up by one (dropping the oldest), moves the
// file to .1 and opens a new one.
func (w *Writer) rotate() error {
	w.f.Close()
	for i := w.keep - 1; i >= 1; i-- {
		_ = os.Rename(w.path+"."+strconv.Itoa(i), w.path+"."+strconv.Itoa(i+1))
	}
	if err := os.Rename(w.path, w.path+".1"); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("log: rotating: %w", err)
	}
	return w.open()
}

// Close closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// Discard is a logger that drops every record, for a run whose log could
// not be opened.
func Discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// Enabled reports whether l logs at level (for work done only to log).
func Enabled(l *slog.Logger, level slog.Level) bool { return l.Enabled(context.Background(), level) }
