package checkpoint

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// CallChanges is what one tool call changed.
type CallChanges struct {
	CallID  string   `json:"call_id"`
	Tool    string   `json:"tool"`
	Changes []Change `json:"changes"`
}

// Turn is one turn that changed the workspace: its state before the first
// change and after the last, and which call changed what.
type Turn struct {
	SessionID    string        `json:"session_id"`
	TurnID       string        `json:"turn_id"`
	Prompt       string        `json:"prompt"`
	MessageIndex int           `json:"message_index"`
	At           time.Time     `json:"at"`
	Before       string        `json:"before"`
	After        string        `json:"after"`
	Calls        []CallChanges `json:"calls"`
	Skipped      []Skip        `json:"skipped,omitempty"`
	// Restores lists the turns a restore took back: a restore is recorded
	// as a turn of its own, so /undo can take it back too, and then those
	// turns count again.
	Restores []string `json:"restores,omitempty"`
	Undone   bool     `json:"-"`
}

// Files is every path the turn changed, with its net change.
func (t Turn) Files() []Change {
	var out []Change
	seen := map[string]int{}
	for _, c := range t.Calls {
		for _, ch := range c.Changes {
			if i, ok := seen[ch.Path]; ok {
				out[i].Kind = netKind(out[i].Kind, ch.Kind)
				continue
			}
			seen[ch.Path] = len(out)
			out = append(out, ch)
		}
	}
	return out
}

func netKind(first, then string) string {
	switch {
	case first == "added" && then == "deleted":
		return "unchanged"
	case first == "added":
		return "added"
	case then == "deleted":
		return "deleted"
	}
	return "modified"
}

// record is one line of the turn log.
type record struct {
	Type string `json:"type"` // turn, undo
	Turn *Turn  `json:"turn,omitempty"`
	// undo: the turn taken back and the state the workspace had before
	// (which a later restore can return to).
	TurnID string    `json:"turn_id,omitempty"`
	Prior  string    `json:"prior,omitempty"`
	At     time.Time `json:"at,omitempty"`
}

// Recorder keeps the turns of a workspace in an append-only log beside
// its side store, and is the engine's Checkpointer.
type Recorder struct {
	Store *Store
	// OnError is told of a recording that failed (the turn goes on).
	OnError func(error)

	mu   sync.Mutex
	cur  *Turn
	last Snap
	base *base // the coming turn's base snapshot, taken by Start
}

// base is a turn's whole-tree snapshot taken in the background (Start):
// done is closed when it has finished, and then snap or err is set.
type base struct {
	turnID string
	cancel context.CancelFunc
	done   chan struct{}
	snap   Snap
	err    error
}

// NewRecorder returns a recorder over s.
func NewRecorder(s *Store) *Recorder { return &Recorder{Store: s} }

func (r *Recorder) logPath() string { return filepath.Join(r.Store.gitDir, "turns.jsonl") }

func (r *Recorder) fail(err error) {
	if err != nil && r.OnError != nil {
		r.OnError(err)
	}
}

// Start begins taking a turn's base state — the whole tree, as the user
// left it between turns — in the background, while the model is asked, so
// the turn's first change (Begin) need only wait for what is left of it
// and then look again at what it is about to write. It returns at once;
// ctx bounds the snapshot, and Finish of a turn that changed nothing
// cancels it (a cancelled snapshot stops before it writes the side index,
// or finishes the write: it never leaves git's lock behind). A base
// still pending from an earlier turn is cancelled and waited for first,
// so two snapshots never share the side index.
func (r *Recorder) Start(ctx context.Context, turnID string) {
	ctx, cancel := context.WithCancel(ctx)
	b := &base{turnID: turnID, cancel: cancel, done: make(chan struct{})}
	r.mu.Lock()
	old := r.base
	r.base = b
	r.mu.Unlock()
	old.stop()
	go func() {
		defer close(b.done)
		defer cancel()
		b.snap, b.err = r.Store.Snapshot(ctx)
	}()
}

// Begin records the state before a turn's first change, looking at the
// whole workspace (the call may change anything).
func (r *Recorder) Begin(ctx context.Context, sessionID, turnID, prompt string, messageIndex int) {
	r.begin(ctx, sessionID, turnID, prompt, messageIndex, nil)
}

// BeginPaths records the state before a turn's first change when that
// change is a call that names, before it runs, the files it will write
// (workspace-relative, literal: a File write, edit or patch). After Start
// of the same turn only those files are looked at again on top of the
// base: what the user edited between the turns is in the base, and an
// edit to one of those files while the model was asked is seen too.
// Without a base it looks at the whole workspace, as Begin does.
func (r *Recorder) BeginPaths(ctx context.Context, sessionID, turnID, prompt string, messageIndex int, paths []string) {
	r.begin(ctx, sessionID, turnID, prompt, messageIndex, paths)
}

func (r *Recorder) begin(ctx context.Context, sessionID, turnID, prompt string, messageIndex int, paths []string) {
	var snap Snap
	err := errNoBase
	if b := r.takeBase(turnID); b != nil {
		// The call waits for the base: it must be taken before anything
		// is written. The base's own deadline bounds the wait.
		<-b.done
		if err = b.err; err == nil {
			// What changed since the base was taken: the files the call
			// names (the rest carried from the base), or the whole tree.
			snap, err = r.Store.Refresh(ctx, paths, b.snap.Tree)
			snap.Skipped = append(b.snap.Skipped, snap.Skipped...)
		}
	}
	if err != nil {
		snap, err = r.Store.Snapshot(ctx)
	}
	if err != nil {
		r.fail(fmt.Errorf("checkpoint before the turn: %w", err))
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur = &Turn{SessionID: sessionID, TurnID: turnID, Prompt: clip(prompt, 200), MessageIndex: messageIndex,
		At: time.Now().UTC(), Before: snap.Tree, Skipped: snap.Skipped}
	r.last = snap
}

var errNoBase = errors.New("no base snapshot")

// stop cancels the snapshot and waits until it has ended, so nothing
// writes into the side store after the turn that started it is over.
func (b *base) stop() {
	if b == nil {
		return
	}
	b.cancel()
	<-b.done
}

// takeBase removes and returns the pending base snapshot of turnID; one
// of another turn is cancelled (its turn is over) and nil returned.
func (r *Recorder) takeBase(turnID string) *base {
	r.mu.Lock()
	b := r.base
	r.base = nil
	r.mu.Unlock()
	if b != nil && b.turnID != turnID {
		b.stop()
		return nil
	}
	return b
}

// Call records what one call changed, looking at the whole workspace (a
// shell command may change anything), and returns those changes.
func (r *Recorder) Call(ctx context.Context, turnID, callID, tool string) []Change {
	return r.call(ctx, turnID, callID, tool, nil)
}

// CallChanged records a call that says exactly which files it changed
// (workspace-relative paths, as a File write, edit or patch reports them):
// only those are looked at again; none means it changed nothing.
func (r *Recorder) CallChanged(ctx context.Context, turnID, callID, tool string, paths []string) {
	if len(paths) == 0 {
		return
	}
	r.call(ctx, turnID, callID, tool, paths)
}

func (r *Recorder) call(ctx context.Context, turnID, callID, tool string, paths []string) []Change {
	r.mu.Lock()
	cur, last := r.cur, r.last
	r.mu.Unlock()
	if cur == nil || cur.TurnID != turnID {
		return nil
	}
	snap, err := r.Store.Refresh(ctx, paths, last.Tree)
	if err != nil {
		r.fail(fmt.Errorf("checkpoint after %s: %w", tool, err))
		return nil
	}
	changes, err := r.Store.Changes(ctx, last.Tree, snap.Tree)
	if err != nil {
		r.fail(err)
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(changes) > 0 {
		cur.Calls = append(cur.Calls, CallChanges{CallID: callID, Tool: tool, Changes: changes})
	}
	cur.Skipped = append(cur.Skipped, snap.Skipped...)
	r.last = snap
	return changes
}

// Finish logs the turn if it changed anything; a base snapshot Start
// took for a turn that never changed anything is cancelled, and Finish
// returns only once it has stopped: after the turn's end nothing of it
// is still writing into the side store.
func (r *Recorder) Finish(turnID string) {
	r.mu.Lock()
	if b := r.base; b != nil && b.turnID == turnID {
		r.base = nil
		r.mu.Unlock()
		b.stop()
		r.mu.Lock()
	}
	cur := r.cur
	if cur == nil || cur.TurnID != turnID {
		r.mu.Unlock()
		return
	}
	r.cur = nil
	cur.After = r.last.Tree
	r.mu.Unlock()
	if len(cur.Calls) == 0 {
		return
	}
	r.fail(r.append(record{Type: "turn", Turn: cur}))
}

func (r *Recorder) append(rec record) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(r.logPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("checkpoint log: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("checkpoint log: %w", err)
	}
	return f.Sync()
}

// Turns returns the session's recorded turns, oldest first, with the ones
// taken back marked.
func (r *Recorder) Turns(sessionID string) ([]Turn, error) {
	f, err := os.Open(r.logPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var turns []Turn
	index := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var rec record
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue // a torn last line
		}
		switch {
		case rec.Type == "turn" && rec.Turn != nil && rec.Turn.SessionID == sessionID:
			index[rec.Turn.TurnID] = len(turns)
			turns = append(turns, *rec.Turn)
		case rec.Type == "undo":
			i, ok := index[rec.TurnID]
			if !ok {
				continue
			}
			turns[i].Undone = true
			for _, id := range turns[i].Restores { // taking a restore back puts its turns back
				if j, ok := index[id]; ok {
					turns[j].Undone = false
				}
			}
		}
	}
	return turns, sc.Err()
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
