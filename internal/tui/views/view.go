// Package views holds the modal views the root model stacks over the
// transcript: the pager (/tools, /jobs show, tool details, reasoning), the
// approval card, list pickers and the help overlay. Each is a small model
// that takes keys and returns an Action; the root model carries out what
// the action emits (CONTRACT.md §14.1).
package views

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/tui/termtext"
)

// Kind says what the root model does with a view after a key.
type Kind int

const (
	// None: the view handled the key (or ignored it) and stays open.
	None Kind = iota
	// Close: pop the view.
	Close
	// Emit: hand Event to the root model; the view stays open.
	Emit
	// EmitAndClose: hand Event over and pop the view.
	EmitAndClose
	// Pass: the view declines the key; the root model routes it as if no
	// modal were open (CONTRACT.md §14.1).
	Pass
)

// Action is a view's answer to a key.
type Action struct {
	Kind  Kind
	Event any
}

func none() Action               { return Action{} }
func closeView() Action          { return Action{Kind: Close} }
func emit(ev any) Action         { return Action{Kind: Emit, Event: ev} }
func emitAndClose(ev any) Action { return Action{Kind: EmitAndClose, Event: ev} }
func pass() Action               { return Action{Kind: Pass} }

// View is a modal.
type View interface {
	// Update handles a key.
	Update(k tea.KeyMsg) Action
	// View renders the modal in a width × height area. Full-screen views
	// fill it; bottom views return only their own rows.
	View(width, height int) string
	// FullScreen reports whether the view replaces the whole screen rather
	// than anchoring to the bottom.
	FullScreen() bool
}

// Wheeler is implemented by views that scroll with the mouse wheel.
type Wheeler interface {
	Wheel(delta int) Action
}

// Events a view can emit.
type (
	// Copy asks for Text on the clipboard, announced as Label.
	Copy struct{ Text, Label string }
	// OpenPager asks for a pager over Body.
	OpenPager struct{ Title, Body string }
	// Picked is a picker's choice.
	Picked struct{ Picker, Value string }
	// RunCommand runs a slash command line.
	RunCommand struct{ Line string }
)

// box draws a bordered block: a top edge carrying title, the rows, and a
// bottom edge carrying hint.
func box(rows []string, width int, title, hint string, edge func(string) string) string {
	inner := max(width-4, 1)
	var b strings.Builder
	b.WriteString(edge(edgeLine("┌", "┐", title, width)))
	for _, r := range rows {
		b.WriteString("\n")
		b.WriteString(edge("│") + " " + termtext.Fit(r, inner) + " " + edge("│"))
	}
	b.WriteString("\n")
	b.WriteString(edge(edgeLine("└", "┘", hint, width)))
	return b.String()
}

func edgeLine(left, right, label string, width int) string {
	fill := width - 2
	s := ""
	if label != "" {
		label = " " + termtext.Truncate(label, max(fill-2, 0), "…") + " "
		s = label
	}
	if n := fill - termtext.Width(s); n > 0 {
		s += strings.Repeat("─", n)
	}
	return left + s + right
}
