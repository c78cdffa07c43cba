package session

import (
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
)

// Options configure a Journal.
type Options struct {
	Provider  string                  // model_provider recorded in the metadata
	Secrets   []string                // exact values to redact besides sk-… keys (the resolved API key)
	Pricing   map[string]config.Price // [pricing.<model>] overrides of the model table's prices
	Retention *config.Retention       // nil keeps every session (CONTRACT.md §15.23)
	// OnPrune, when set, hears which sessions the retention policy deleted
	// (and any error), so the host can say so: deletion is never silent.
	OnPrune         func(deleted []string, err error)
	ParentSessionID string           // recorded in sessions this journal creates
	Now             func() time.Time // clock; time.Now when nil

	noSync bool // tests and benchmark setup only: skip fsync
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// OptionsFrom builds the options for a session run from the configuration:
// the provider, the price table, the retention policy, and as secrets the
// resolved API key plus the value of every *_API_KEY environment variable.
func OptionsFrom(cfg *config.Config) Options {
	o := Options{Provider: cfg.Provider, Pricing: cfg.File.Pricing, Retention: cfg.File.SessionRetention}
	if cfg.APIKey != "" {
		o.Secrets = append(o.Secrets, cfg.APIKey)
	}
	o.Secrets = append(o.Secrets, cfg.EnvAPIKeys...)
	return o
}

// Dir is the sessions directory under a codewhale home.
func Dir(home string) string { return filepath.Join(home, "sessions") }

// Journal persists a running session (engine.Journal). It follows the
// session id the engine reports, so /new, /clear and an in-TUI resume switch
// files without a new Journal. Safe for concurrent use.
type Journal struct {
	home, dir string
	opts      Options

	mu  sync.Mutex
	cur *writer
}

var _ engine.Journal = (*Journal)(nil)

// NewJournal returns a Journal writing under Dir(home). Files are created
// lazily, on the first message of a session.
func NewJournal(home string, o Options) *Journal {
	return &Journal{home: home, dir: Dir(home), opts: o}
}

// Append records msgs at the end of the history and the metadata in info,
// durably, before it returns. With no messages it records new usage totals.
func (j *Journal) Append(info engine.SessionInfo, msgs ...provider.Message) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	w, err := j.writerFor(info, len(msgs) > 0)
	if err != nil || w == nil {
		return err
	}
	if err := w.append(info, msgs); err != nil {
		j.drop()
		return err
	}
	return nil
}

// Rewrite replaces the stored history with msgs atomically.
func (j *Journal) Rewrite(info engine.SessionInfo, msgs []provider.Message) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	w, err := j.writerFor(info, true)
	if err != nil {
		return err
	}
	if err := w.rewrite(info, msgs); err != nil {
		j.drop()
		return err
	}
	return nil
}

// Claim takes the one-writer lock of the saved session id before anything
// is sent, so a second process resuming it stops at once: a *BusyError
// (errors.Is(err, ErrBusy)) names the holder's pid. The claimed session is
// the one the next Append writes. A session with no file yet is not an
// error.
func (j *Journal) Claim(id string) error {
	_, err := j.claim(id)
	return err
}

// claim is Claim that also hands over, once, what taking the file over
// repaired (nil: nothing, or already handed over).
func (j *Journal) claim(id string) (*Repaired, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	w, err := j.writerFor(engine.SessionInfo{ID: id}, false)
	if err != nil || w == nil {
		return nil, err
	}
	r := w.repaired
	w.repaired = nil
	return r, nil
}

// Compacted records a compaction: the first replaced messages of the
// history are now summary. It appends one line; the messages it replaces
// stay in the file (engine.Journal).
func (j *Journal) Compacted(info engine.SessionInfo, replaced int, summary provider.Message) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	w, err := j.writerFor(info, true)
	if err != nil {
		return err
	}
	if err := w.compacted(info, replaced, summary); err != nil {
		j.drop()
		return err
	}
	return nil
}

// Path is the file of the session being written, or "" before the first
// message.
func (j *Journal) Path() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cur == nil {
		return ""
	}
	return j.cur.path
}

// Close releases the open session file and its lock.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cur == nil {
		return nil
	}
	err := j.cur.close()
	j.cur = nil
	return err
}

// drop forgets the writer after a failed write: the next call reopens the
// file, and a partial line the failure left is then repaired.
func (j *Journal) drop() {
	if j.cur != nil {
		j.cur.close()
		j.cur = nil
	}
}

func (j *Journal) writerFor(info engine.SessionInfo, create bool) (*writer, error) {
	if j.cur != nil && j.cur.id == info.ID {
		return j.cur, nil
	}
	j.drop()
	w, err := openWriter(j.dir, &j.opts, info, create)
	if err != nil || w == nil {
		return nil, err
	}
	j.cur = w
	if j.opts.Retention != nil && w.count == 0 {
		// A new session: apply the opt-in retention policy now, once. It is
		// best effort; saving the session is what matters.
		deleted, err := Prune(j.home, *j.opts.Retention, info.ID, j.opts.now())
		if j.opts.OnPrune != nil && (len(deleted) > 0 || err != nil) {
			j.opts.OnPrune(deleted, err)
		}
	}
	return w, nil
}

// ValidID checks that id can name a session file.
func ValidID(id string) error {
	if id == "" || len(id) > 128 {
		return fmt.Errorf("invalid session id %q: it must be 1 to 128 characters", id)
	}
	for _, c := range id {
		if !(c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return fmt.Errorf("invalid session id %q: only letters, digits, '-' and '_' are allowed", id)
		}
	}
	return nil
}
