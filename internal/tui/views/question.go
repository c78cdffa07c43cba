package views

import (
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

// Question is a question with a few answers (what /undo, /restore and
// /retry ask): body lines say what would happen, ↑/↓ or the answer's
// number select, Enter answers, Esc or q cancels. The answer is reported
// as Picked{Picker: Name, Value}; cancelling reports Value "".
type Question struct {
	Name    string
	Title   string
	Body    []string
	Options []Item
	theme   *theme.Theme
	sel     int
	focus   *Focus // nil: answers from the first key
}

// NewQuestion returns a question with the answer whose value is def selected.
func NewQuestion(t *theme.Theme, name, title string, body []string, options []Item, def string) *Question {
	c := &Question{Name: name, Title: title, Body: body, Options: options, theme: t}
	for i, o := range options {
		if o.Value == def {
			c.sel = i
		}
	}
	return c
}

// Focusable makes the question follow the focus rule like the approval
// card, for a question that opens on its own while the person may be
// typing for the composer; focused is whether it opens with the keys.
func (c *Question) Focusable(focused bool) *Question {
	f := NewFocus(focused)
	c.focus = &f
	return c
}

// FullScreen implements View.
func (c *Question) FullScreen() bool { return false }

// Selected is the value of the selected answer.
func (c *Question) Selected() string { return c.Options[c.sel].Value }

// Update implements View.
func (c *Question) Update(k tea.KeyMsg) Action {
	if c.focus != nil {
		if act, ok := c.focus.route(k); ok {
			return act
		}
	}
	switch s := k.String(); s {
	case "esc", "q", "ctrl+c":
		return emitAndClose(Picked{Picker: c.Name})
	case "up", "k", "ctrl+p": // Shift+Tab is the posture chord, before any modal
		c.sel = max(c.sel-1, 0)
	case "down", "j", "ctrl+n", "tab":
		c.sel = min(c.sel+1, len(c.Options)-1)
	case "enter":
		return emitAndClose(Picked{Picker: c.Name, Value: c.Selected()})
	default:
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(c.Options) {
			c.sel = n - 1
			return emitAndClose(Picked{Picker: c.Name, Value: c.Selected()})
		}
	}
	return none()
}

// View implements View: the body, a blank line, the numbered answers.
func (c *Question) View(w, h int) string {
	inner := max(w-4, 1)
	var rows []string
	room := max(h-3-len(c.Options), 1)
	for i, line := range c.Body {
		if i == room-1 && len(c.Body) > room {
			rows = append(rows, c.theme.Dim.Render("…"))
			break
		}
		rows = append(rows, termtext.Truncate(termtext.ExpandTabs(termtext.Sanitize(line)), inner, "…"))
	}
	rows = append(rows, "")
	for i, o := range c.Options {
		row := termtext.Truncate(strconv.Itoa(i+1)+". "+o.Label, inner-2, "…")
		if i == c.sel {
			rows = append(rows, c.theme.Selected.Render("▸ "+termtext.PadRight(row, inner-2)))
		} else {
			rows = append(rows, "  "+row)
		}
	}
	edge := func(s string) string { return c.theme.Accent.Render(s) }
	hints := "1–" + strconv.Itoa(len(c.Options)) + " answer · ↑/↓ Enter · Esc cancel"
	if c.focus != nil {
		hints += FocusedTail
		if !c.focus.Focused() {
			hints = UnfocusedHint
		}
	}
	return box(rows, w, c.Title, hints, edge)
}
