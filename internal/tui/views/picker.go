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

// Picker is a small bottom-anchored list (mode picker, model picker,
// sessions): ↑/↓ or j/k move, Enter picks, Esc or q closes. With Filter
// set, `/` starts a filter that narrows the rows as you type; with Delete
// set, `d` asks to delete the selected row and `y` confirms.
type Picker struct {
	Name   string // reported in Picked.Picker
	Title  string
	Items  []Item
	Filter bool
	Delete bool
	// Archive: `a` asks the root model to archive (or unarchive) a row.
	Archive bool
	theme   *theme.Theme
	sel     int // index into shown()

	filter    string
	filtering bool
	confirm   bool // a delete waits for y
}

// Deleted asks the root model to delete a picker row's value.
type Deleted struct{ Picker, Value string }

// Archived asks the root model to archive (or unarchive) a row's value.
type Archived struct{ Picker, Value string }

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

// shown are the rows the filter lets through.
func (p *Picker) shown() []Item {
	if p.filter == "" {
		return p.Items
	}
	q := strings.ToLower(p.filter)
	var out []Item
	for _, it := range p.Items {
		if strings.Contains(strings.ToLower(it.Label+" "+it.Hint), q) {
			out = append(out, it)
		}
	}
	return out
}

// Remove drops the row with value v (after the root model deleted it).
func (p *Picker) Remove(v string) {
	kept := p.Items[:0]
	for _, it := range p.Items {
		if it.Value != v {
			kept = append(kept, it)
		}
	}
	p.Items = kept
	p.sel = min(p.sel, max(len(p.shown())-1, 0))
}

// Update implements View.
func (p *Picker) Update(k tea.KeyMsg) Action {
	if p.filtering {
		return p.filterKey(k)
	}
	items := p.shown()
	if p.confirm {
		p.confirm = false
		if k.String() == "y" && len(items) > 0 {
			return emit(Deleted{Picker: p.Name, Value: items[p.sel].Value})
		}
		return none()
	}
	switch k.String() {
	case "esc", "q", "ctrl+c":
		if p.filter != "" {
			p.filter, p.sel = "", 0
			return none()
		}
		return closeView()
	case "up", "k", "ctrl+p":
		p.sel = max(p.sel-1, 0)
	case "down", "j", "ctrl+n":
		p.sel = min(p.sel+1, max(len(items)-1, 0))
	case "/":
		if p.Filter {
			p.filtering = true
		}
	case "d":
		p.confirm = p.Delete && len(items) > 0
	case "a":
		if p.Archive && len(items) > 0 {
			return emit(Archived{Picker: p.Name, Value: items[p.sel].Value})
		}
	case "enter":
		if len(items) == 0 {
			return closeView()
		}
		return emitAndClose(Picked{Picker: p.Name, Value: items[p.sel].Value})
	}
	return none()
}

func (p *Picker) filterKey(k tea.KeyMsg) Action {
	switch k.Type {
	case tea.KeyEnter:
		p.filtering = false
	case tea.KeyEsc:
		p.filtering, p.filter = false, ""
	case tea.KeyBackspace:
		if r := []rune(p.filter); len(r) > 0 {
			p.filter = string(r[:len(r)-1])
		}
	case tea.KeyRunes, tea.KeySpace:
		p.filter += string(k.Runes)
		if k.Type == tea.KeySpace {
			p.filter += " "
		}
	}
	p.sel = 0
	return none()
}

// Wheel implements Wheeler.
func (p *Picker) Wheel(delta int) Action {
	p.sel = min(max(p.sel+delta, 0), max(len(p.shown())-1, 0))
	return none()
}

// View implements View.
func (p *Picker) View(w, h int) string {
	inner := max(w-4, 1)
	items := p.shown()
	labelW := 0
	for _, it := range items {
		labelW = max(labelW, termtext.Width(it.Label))
	}
	var rows []string
	if p.filtering || p.filter != "" {
		rows = append(rows, p.theme.Accent.Render("Filter: "+p.filter))
	}
	room := max(h-2-len(rows), 1)
	first := 0
	if p.sel >= room {
		first = p.sel - room + 1
	}
	for i := first; i < len(items) && i-first < room; i++ {
		it := items[i]
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
	if len(items) == 0 {
		rows = append(rows, "  No matches.")
	}
	edge := func(s string) string { return p.theme.Accent.Render(s) }
	return box(rows, w, p.Title, p.hints(items), edge)
}

func (p *Picker) hints(items []Item) string {
	switch {
	case p.confirm && len(items) > 0:
		return "Delete " + termtext.OneLine(items[p.sel].Label) + "? y delete · any other key keeps it"
	case p.filtering:
		return "type to filter · Enter keep · Esc clear"
	}
	h := "↑/↓ select · Enter apply · Esc close"
	if p.Filter {
		h += " · / filter"
	}
	if p.Delete {
		h += " · d delete"
	}
	if p.Archive {
		h += " · a archive"
	}
	return h
}

// HelpEntry is one row of the help overlay.
type HelpEntry struct {
	Section, Key, Text string
}

// Help is the help overlay: sections of slash commands and
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
