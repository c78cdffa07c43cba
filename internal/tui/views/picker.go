package views

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

// Item is one picker row.
type Item struct {
	Label, Hint, Value string
}

// Picker is a small bottom-anchored list (mode picker, model picker):
// ↑/↓ or j/k move, Enter picks, Esc or q closes.
type Picker struct {
	Name  string // reported in Picked.Picker
	Title string
	Items []Item
	theme *theme.Theme
	sel   int
}

// NewPicker returns a picker with the row whose value is current selected.
func NewPicker(t *theme.Theme, name, title string, items []Item, current string) *Picker {
	p := &Picker{Name: name, Title: title, Items: items, theme: t}
	for i, it := range items {
		if it.Value == current {
			p.sel = i
		}
	}
	return p
}

// FullScreen implements View.
func (p *Picker) FullScreen() bool { return false }

// Update implements View.
func (p *Picker) Update(k tea.KeyMsg) Action {
	switch k.String() {
	case "esc", "q", "ctrl+c":
		return closeView()
	case "up", "k", "ctrl+p":
		p.sel = max(p.sel-1, 0)
	case "down", "j", "ctrl+n":
		p.sel = min(p.sel+1, len(p.Items)-1)
	case "enter":
		if len(p.Items) == 0 {
			return closeView()
		}
		return emitAndClose(Picked{Picker: p.Name, Value: p.Items[p.sel].Value})
	}
	return none()
}

// Wheel implements Wheeler.
func (p *Picker) Wheel(delta int) Action {
	p.sel = min(max(p.sel+delta, 0), max(len(p.Items)-1, 0))
	return none()
}

// View implements View.
func (p *Picker) View(w, h int) string {
	inner := max(w-4, 1)
	labelW := 0
	for _, it := range p.Items {
		labelW = max(labelW, termtext.Width(it.Label))
	}
	rows := make([]string, 0, len(p.Items))
	first := 0
	if visible := max(h-2, 1); p.sel >= visible {
		first = p.sel - visible + 1
	}
	for i := first; i < len(p.Items) && len(rows) < max(h-2, 1); i++ {
		it := p.Items[i]
		row := termtext.PadRight(it.Label, labelW)
		if it.Hint != "" {
			row += "  " + p.theme.Dim.Render(it.Hint)
		}
		row = termtext.Truncate(row, inner-2, "…")
		if i == p.sel {
			rows = append(rows, p.theme.Selected.Render("▸ "+termtext.PadRight(row, inner-2)))
		} else {
			rows = append(rows, "  "+row)
		}
	}
	edge := func(s string) string { return p.theme.Accent.Render(s) }
	return box(rows, w, p.Title, "↑/↓ select · Enter apply · Esc close", edge)
}

// HelpEntry is one row of the help overlay.
type HelpEntry struct {
	Section, Key, Text string
}

// Help is the help overlay (tui.md §6.4.1): sections of slash commands and
// key bindings; typing filters, ↑/↓ and PgUp/PgDn scroll, Esc closes.
type Help struct {
	entries []HelpEntry
	theme   *theme.Theme
	filter  string
	scroll  int
	page    int
}

// NewHelp returns the overlay over entries.
func NewHelp(t *theme.Theme, entries []HelpEntry) *Help {
	return &Help{entries: entries, theme: t, page: 10}
}

// FullScreen implements View.
func (h *Help) FullScreen() bool { return true }

// Update implements View.
func (h *Help) Update(k tea.KeyMsg) Action {
	switch k.Type {
	case tea.KeyEsc, tea.KeyCtrlC:
		return closeView()
	case tea.KeyUp:
		h.scroll--
	case tea.KeyDown:
		h.scroll++
	case tea.KeyPgUp:
		h.scroll -= h.page
	case tea.KeyPgDown:
		h.scroll += h.page
	case tea.KeyBackspace:
		if r := []rune(h.filter); len(r) > 0 {
			h.filter = string(r[:len(r)-1])
			h.scroll = 0
		}
	case tea.KeyRunes, tea.KeySpace:
		h.filter += string(k.Runes)
		h.scroll = 0
	}
	return none()
}

// Wheel implements Wheeler.
func (h *Help) Wheel(delta int) Action {
	h.scroll += 3 * delta
	return none()
}

func (h *Help) rows(w int) []string {
	q := strings.ToLower(h.filter)
	var rows []string
	section := ""
	keyW := 0
	for _, e := range h.entries {
		keyW = max(keyW, termtext.Width(e.Key))
	}
	keyW = min(keyW, max(w/2-2, 12))
	for _, e := range h.entries {
		if q != "" && !strings.Contains(strings.ToLower(e.Section+" "+e.Key+" "+e.Text), q) {
			continue
		}
		if e.Section != section {
			if section != "" {
				rows = append(rows, "")
			}
			section = e.Section
			rows = append(rows, h.theme.Accent.Render(section))
		}
		rows = append(rows, h.entryRows(e, keyW, w)...)
	}
	if len(rows) == 0 {
		rows = append(rows, "  No matches.")
	}
	return rows
}

// entryRows draws one entry in full: the key column fits the longest key
// up to half the width (a longer key takes its own row), and the text
// wraps instead of being cut.
func (h *Help) entryRows(e HelpEntry, keyW, w int) []string {
	var rows []string
	key := e.Key
	if termtext.Width(key) > keyW {
		rows = append(rows, termtext.Truncate("  "+key, w, "…"))
		key = ""
	}
	pad := "  " + strings.Repeat(" ", keyW) + " "
	for i, t := range termtext.WrapPlain(e.Text, max(w-len(pad), 10)) {
		lead := pad
		if i == 0 {
			lead = "  " + termtext.PadRight(key, keyW) + " "
		}
		rows = append(rows, lead+h.theme.Dim.Render(t))
	}
	return rows
}

// View implements View.
func (h *Help) View(w, height int) string {
	rows := h.rows(w)
	h.page = max(height-4, 1)
	h.scroll = min(max(h.scroll, 0), max(len(rows)-h.page, 0))
	out := []string{h.theme.Bold.Render("Help"), h.theme.Dim.Render("Concepts, commands, and keybindings")}
	end := min(h.scroll+h.page, len(rows))
	out = append(out, rows[h.scroll:end]...)
	for len(out) < height-2 {
		out = append(out, "")
	}
	filter := "Filter: " + h.filter
	if h.filter == "" {
		filter = "Type to filter"
	}
	out = append(out, h.theme.Accent.Render(filter), h.theme.Dim.Render("↑/↓ move · PgUp/PgDn jump · Esc close"))
	return strings.Join(out, "\n")
}
