package views

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// GuardHint is a guarded card's bottom edge while it still ignores keys.
const GuardHint = "waiting for a deliberate answer · keys go to the composer"

// The key guard (CONTRACT.md §14.6, issue 14): keys typed for the composer just
// before a card appears are never its answer. A guarded card ignores keys
// until it has been open for GraceOpen and no key has arrived for
// GraceQuiet, so a person still typing keeps typing into the composer,
// however long that takes, and answers only after a pause.
const (
	GraceOpen  = 500 * time.Millisecond
	GraceQuiet = 450 * time.Millisecond
)

// KeyGuard is that guard, for a card that opens while the person may be
// typing: the approval card, and a question that opens when a turn ends
// (/init's proposal).
type KeyGuard struct {
	now     func() time.Time
	opened  time.Time
	lastKey time.Time // the last key the guard passed on
}

// NewKeyGuard starts a guard for a card opening now().
func NewKeyGuard(now func() time.Time) KeyGuard { return KeyGuard{now: now, opened: now()} }

// ReadyAt is when the card starts taking answers if no further key arrives.
func (g *KeyGuard) ReadyAt() time.Time {
	t := g.opened.Add(GraceOpen)
	if q := g.lastKey.Add(GraceQuiet); q.After(t) {
		t = q
	}
	return t
}

// Guarded reports whether the card still passes keys on to the composer.
func (g *KeyGuard) Guarded() bool { return g.now().Before(g.ReadyAt()) }

// Holds reports whether k must be passed on instead of answering the card:
// while guarded (the key extends the guard) and for any paste.
func (g *KeyGuard) Holds(k tea.KeyMsg) bool {
	if g.Guarded() || k.Paste {
		g.lastKey = g.now()
		return true
	}
	return false
}

// Guarder is a card that may carry a KeyGuard (nil: it has none).
type Guarder interface{ Guard() *KeyGuard }

// Guard implements Guarder.
func (a *Approval) Guard() *KeyGuard { return &a.guard }

// Guard implements Guarder.
func (c *Question) Guard() *KeyGuard { return c.guard }
