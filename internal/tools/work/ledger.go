// Package work implements the single canonical To-do ledger (CONTRACT.md §6.8):
// the work_update tool, its hidden todo_*/checklist_* replay aliases, and the
// one bounded renderer of the <codewhale:work_state> body (CONTRACT.md §7).
//
// There is one Ledger per agent: the parent thread owns one, every sub-agent
// owns its own. All writers, canonical and alias, go through the Ledger, so
// there is no second progress store.
package work

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// Status is a To-do item's state.
type Status string

const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Completed  Status = "completed"
	Cancelled  Status = "cancelled"
)

// ParseStatus reads a status case-insensitively with the accepted synonyms
// (inprogress/in-progress/in progress, complete/done, canceled). ok is false
// for anything else.
func ParseStatus(raw string) (Status, bool) {
	switch strings.ToLower(strings.TrimSpace(raw)) {
	case "pending":
		return Pending, true
	case "in_progress", "inprogress", "in-progress", "in progress":
		return InProgress, true
	case "completed", "complete", "done":
		return Completed, true
	case "cancelled", "canceled":
		return Cancelled, true
	}
	return "", false
}

// UnmarshalJSON canonicalises any spelling ParseStatus accepts, so a
// persisted snapshot written by an older build still restores. An unknown
// spelling is kept as is for Restore to reject with the exact message.
func (s *Status) UnmarshalJSON(b []byte) error {
	var raw string
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if st, ok := ParseStatus(raw); ok {
		raw = string(st)
	}
	*s = Status(raw)
	return nil
}

// settled reports whether the item reached a terminal outcome.
func (s Status) settled() bool { return s == Completed || s == Cancelled }

// restoreError is a persisted snapshot that failed validation; its text is
// the contract's exact message.
type restoreError string

func (e restoreError) Error() string { return string(e) }

func unknownStatus(raw string) error {
	return fmt.Errorf("unknown todo status '%s'; expected pending, in_progress, completed, or cancelled", raw)
}

// Item is one To-do entry.
type Item struct {
	ID      int    `json:"id"`
	Content string `json:"content"`
	Status  Status `json:"status"`
}

// Snapshot is the ledger's published state. Items is omitted when empty and
// InProgressID when no item is in progress (0).
type Snapshot struct {
	Items         []Item `json:"items,omitempty"`
	CompletionPct int    `json:"completion_pct"`
	InProgressID  int    `json:"in_progress_id,omitempty"`
}

// Entry is one item of a write: what the model supplied, before ids exist.
type Entry struct {
	Content string
	Status  Status
}

// Ledger is one agent's To-do list. It is safe for concurrent use.
type Ledger struct {
	mu       sync.Mutex
	items    []Item
	nextID   int
	onChange func(Snapshot)
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger { return &Ledger{nextID: 1} }

// OnChange registers fn to receive every published snapshot (for a UI). fn
// runs outside the ledger's lock, on the writer's goroutine.
func (l *Ledger) OnChange(fn func(Snapshot)) {
	l.mu.Lock()
	l.onChange = fn
	l.mu.Unlock()
}

// Snapshot returns the current state with derived fields computed.
func (l *Ledger) Snapshot() Snapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	return snapshotOf(l.items)
}

// Replace rebuilds the list from entries in order, numbering ids from 1. A
// later in-progress entry demotes every earlier one to pending.
func (l *Ledger) Replace(entries []Entry) Snapshot {
	items := make([]Item, 0, len(entries))
	for i, e := range entries {
		items = appendItem(items, Item{ID: i + 1, Content: e.Content, Status: e.Status})
	}
	return l.publish(func() { l.items, l.nextID = items, len(items)+1 })
}

// Add appends one item with the next id and returns it with the snapshot.
func (l *Ledger) Add(e Entry) (Item, Snapshot) {
	var added Item
	snap := l.publish(func() {
		added = Item{ID: l.nextID, Content: e.Content, Status: e.Status}
		l.nextID++
		l.items = appendItem(l.items, added)
	})
	return added, snap
}

// SetStatus changes one item's status by id. ok is false (and nothing
// changes) when the id is unknown.
func (l *Ledger) SetStatus(id int, st Status) (snap Snapshot, ok bool) {
	snap = l.publish(func() {
		idx := -1
		for i := range l.items {
			if l.items[i].ID == id {
				idx = i
			}
		}
		if idx < 0 {
			return
		}
		ok = true
		if st == InProgress {
			demoteInProgress(l.items)
		}
		l.items[idx].Status = st
	})
	return snap, ok
}

// Restore replaces the list with a persisted snapshot after validating it:
// ids must be positive and unique and at most one item may be in progress.
// On error the live list is unchanged. Derived fields are recomputed.
func (l *Ledger) Restore(s Snapshot) error {
	seen := make(map[int]bool, len(s.Items))
	items := make([]Item, 0, len(s.Items))
	maxID, active := 0, 0
	for _, it := range s.Items {
		switch {
		case it.ID <= 0:
			return restoreError("To-do item IDs must be greater than zero")
		case seen[it.ID]:
			return restoreError(fmt.Sprintf("Duplicate To-do item ID %d", it.ID))
		}
		st, ok := ParseStatus(string(it.Status))
		if !ok {
			return unknownStatus(string(it.Status))
		}
		if st == InProgress {
			if active++; active > 1 {
				return restoreError("Only one To-do item may be in progress")
			}
		}
		seen[it.ID] = true
		maxID = max(maxID, it.ID)
		items = append(items, Item{ID: it.ID, Content: it.Content, Status: st})
	}
	l.publish(func() { l.items, l.nextID = items, maxID+1 })
	return nil
}

// RestoreJSON restores a snapshot from its JSON form.
func (l *Ledger) RestoreJSON(data []byte) error {
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("restore To-do list: snapshot is not valid JSON: %w", err)
	}
	return l.Restore(s)
}

// MarshalJSON persists the ledger as its snapshot.
func (l *Ledger) MarshalJSON() ([]byte, error) { return json.Marshal(l.Snapshot()) }

// publish applies change under the lock, then notifies the observer.
func (l *Ledger) publish(change func()) Snapshot {
	l.mu.Lock()
	change()
	snap := snapshotOf(l.items)
	fn := l.onChange
	l.mu.Unlock()
	if fn != nil {
		fn(snap)
	}
	return snap
}

// appendItem adds it, keeping at most one item in progress (the newest).
func appendItem(items []Item, it Item) []Item {
	if it.Status == InProgress {
		demoteInProgress(items)
	}
	return append(items, it)
}

func demoteInProgress(items []Item) {
	for i := range items {
		if items[i].Status == InProgress {
			items[i].Status = Pending
		}
	}
}

// snapshotOf copies items and computes completion_pct, rounding half up:
// (settled*100 + total/2) / total.
func snapshotOf(items []Item) Snapshot {
	s := Snapshot{Items: append([]Item(nil), items...)}
	settled := 0
	for _, it := range items {
		if it.Status.settled() {
			settled++
		}
		if it.Status == InProgress && s.InProgressID == 0 {
			s.InProgressID = it.ID
		}
	}
	if n := len(items); n > 0 {
		s.CompletionPct = (settled*100 + n/2) / n
	}
	return s
}
