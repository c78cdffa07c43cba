package views

import tea "github.com/charmbracelet/bubbletea"

// The focus rule (CONTRACT.md §14.6; issue 23 §7): a card that opens while
// the person is typing for the composer opens without focus, and then every
// key but Tab goes on to the composer as if the card were not there, however
// long the person pauses: no timing makes a letter an answer. Tab, a key
// nobody types in prose, gives the card the keys; Tab again gives them back.
// A paste is never an answer: it goes to the composer and takes the keys
// with it.

// UnfocusedHint is the bottom edge of a card that does not have the keys.
const UnfocusedHint = "Tab to answer · typing goes to the composer"

// FocusedTail ends a focused card's hints: Tab gives the keys back to the
// composer.
const FocusedTail = " · Tab back"

// Focus is whether a card has the keys.
type Focus struct{ focused bool }

// NewFocus returns a card's focus: focused when it opens with nobody typing.
func NewFocus(focused bool) Focus { return Focus{focused: focused} }

// Focused reports whether the card takes keys.
func (f *Focus) Focused() bool { return f.focused }

// Blur gives the keys to the composer.
func (f *Focus) Blur() { f.focused = false }

// route applies the rule to k: ok reports that the rule decided where k
// goes (the returned action); otherwise the focused card handles k.
func (f *Focus) route(k tea.KeyMsg) (Action, bool) {
	switch {
	case k.Paste:
		f.focused = false
		return pass(), true
	case k.Type == tea.KeyTab:
		f.focused = !f.focused
		return none(), true
	case !f.focused:
		return pass(), true
	}
	return Action{}, false
}

// Focuser is a card that may follow the focus rule (nil: it always has the
// keys).
type Focuser interface{ Focus() *Focus }

// FocusOf is the focus of a view that follows the focus rule, or nil.
func FocusOf(v View) *Focus {
	if f, ok := v.(Focuser); ok {
		return f.Focus()
	}
	return nil
}

// Focus implements Focuser.
func (a *Approval) Focus() *Focus { return &a.focus }

// Focus implements Focuser.
func (c *Question) Focus() *Focus { return c.focus }
