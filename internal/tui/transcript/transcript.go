package transcript

import (
	"github.com/codewhale/codewhale/internal/tui/termtext"
)

// Transcript is the ordered list of cells and the scroll state over it.
//
// Scrolling is anchored to a cell, not to an absolute row: while following
// the view is laid out from the last cell upwards, otherwise from the
// anchor cell downwards. Either way only the cells on screen are rendered,
// so a history of ten thousand messages costs what one screen costs.
type Transcript struct {
	Env *Env

	cells    []*Cell
	gen      uint64 // bumps when Env changes in a way that affects every cell
	follow   bool
	anchor   position
	newBelow bool
}

// position is a row inside a cell's block (the block includes the blank
// separator row above the cell, when it has one).
type position struct{ cell, row int }

// New returns an empty transcript that follows new output.
func New(env *Env) *Transcript { return &Transcript{Env: env, follow: true} }

// Len is the number of cells.
func (t *Transcript) Len() int { return len(t.cells) }

// Cell returns cell i.
func (t *Transcript) Cell(i int) *Cell { return t.cells[i] }

// Cells returns the cells (not a copy; do not modify the slice).
func (t *Transcript) Cells() []*Cell { return t.cells }

// Add appends a cell and returns it. While the user is scrolled up the
// "new output below" marker is raised.
func (t *Transcript) Add(c *Cell) *Cell {
	t.cells = append(t.cells, c)
	t.Changed()
	return c
}

// Changed records that a cell changed (its own revision was bumped by the
// cell's mutator); while unpinned it raises the new-output marker.
func (t *Transcript) Changed() {
	if !t.follow {
		t.newBelow = true
	}
}

// Clear removes every cell and re-pins to the bottom.
func (t *Transcript) Clear() {
	t.cells = nil
	t.follow, t.newBelow, t.anchor = true, false, position{}
}

// Invalidate drops every cached rendering (theme, verbosity changed).
func (t *Transcript) Invalidate() {
	t.gen++
	for _, c := range t.cells {
		c.head = headCache{} // a streaming reply's rendered head too
	}
}

// Following reports whether the view is pinned to the bottom.
func (t *Transcript) Following() bool { return t.follow }

// NewBelow reports unseen output below an unpinned view.
func (t *Transcript) NewBelow() bool { return t.newBelow && !t.follow }

// Last returns the last cell of kind, or nil.
func (t *Transcript) Last(kind Kind) *Cell {
	for i := len(t.cells) - 1; i >= 0; i-- {
		if t.cells[i].Kind == kind {
			return t.cells[i]
		}
	}
	return nil
}

// lines returns cell i's rendered rows at width w, cached by width,
// revision and generation; running cells are redrawn every time.
func (t *Transcript) lines(i, w int) []string {
	c := t.cells[i]
	if !c.Running() && c.cache.lines != nil && c.cache.width == w && c.cache.rev == c.rev && c.cache.gen == t.gen {
		return c.cache.lines
	}
	rows := t.Env.render(c, w)
	c.cache = cache{width: w, rev: c.rev, gen: t.gen, lines: rows}
	return rows
}

// gap reports whether a blank row separates cell i from the one above:
// every cell except a tool call that continues its group.
func (t *Transcript) gap(i int) bool {
	if i == 0 {
		return false
	}
	prev, c := t.cells[i-1], t.cells[i]
	return !(c.Kind == Tool && prev.Kind == Tool && prev.Group == c.Group)
}

// blockLen is the number of rows cell i occupies including its gap.
func (t *Transcript) blockLen(i, w int) int {
	n := len(t.lines(i, w))
	if t.gap(i) {
		n++
	}
	return n
}

// blockRow returns row r of cell i's block.
func (t *Transcript) blockRow(i, r, w int) string {
	if t.gap(i) {
		if r == 0 {
			return ""
		}
		r--
	}
	return t.lines(i, w)[r]
}

// View returns exactly h rows of width w for the current scroll state.
func (t *Transcript) View(w, h int) []string {
	if h <= 0 {
		return nil
	}
	var rows []string
	if t.follow {
		rows = t.bottomRows(w, h)
	} else {
		rows = t.rowsFrom(t.anchor, w, h)
	}
	if t.NewBelow() && len(rows) > 0 {
		rows[len(rows)-1] = t.Env.Theme.Warning.Render(termtext.Truncate("↓ new output below · Ctrl+End to follow", w, "…"))
	}
	for len(rows) < h {
		rows = append(rows, "")
	}
	return rows
}

// bottomRows lays out the last h rows, walking cells from the end.
func (t *Transcript) bottomRows(w, h int) []string {
	var blocks [][]string
	n := 0
	for i := len(t.cells) - 1; i >= 0 && n < h; i-- {
		k := t.blockLen(i, w)
		b := make([]string, 0, k)
		for r := 0; r < k; r++ {
			b = append(b, t.blockRow(i, r, w))
		}
		blocks = append(blocks, b)
		n += k
	}
	rows := make([]string, 0, n)
	for i := len(blocks) - 1; i >= 0; i-- {
		rows = append(rows, blocks[i]...)
	}
	if len(rows) > h {
		rows = rows[len(rows)-h:]
	}
	return rows
}

// rowsFrom lays out up to h rows starting at p.
func (t *Transcript) rowsFrom(p position, w, h int) []string {
	rows := make([]string, 0, h)
	for i := p.cell; i < len(t.cells) && len(rows) < h; i++ {
		k := t.blockLen(i, w)
		r := 0
		if i == p.cell {
			r = p.row
		}
		for ; r < k && len(rows) < h; r++ {
			rows = append(rows, t.blockRow(i, r, w))
		}
	}
	return rows
}

// topOfBottom is the position of the first row shown while following.
func (t *Transcript) topOfBottom(w, h int) position {
	n := 0
	for i := len(t.cells) - 1; i >= 0; i-- {
		k := t.blockLen(i, w)
		if n+k >= h {
			return position{cell: i, row: n + k - h}
		}
		n += k
	}
	return position{}
}

// ScrollKey moves a w×h view for a scrolling key (CONTRACT.md §14.6):
// PgUp/PgDn by a page, Shift/Alt+↑↓ by three rows, Ctrl+Home/End to the
// ends, and Alt+g/G to the ends only when the composer is empty (else
// they are typing). It reports whether key scrolls.
func (t *Transcript) ScrollKey(key string, w, h int, composerEmpty bool) bool {
	switch key {
	case "pgup":
		t.Scroll(-max(h-1, 1), w, h)
	case "pgdown":
		t.Scroll(max(h-1, 1), w, h)
	case "shift+up", "alt+up":
		t.Scroll(-3, w, h)
	case "shift+down", "alt+down":
		t.Scroll(3, w, h)
	case "ctrl+home":
		t.Top(w, h)
	case "ctrl+end":
		t.Bottom()
	case "alt+g":
		if !composerEmpty {
			return false
		}
		t.Top(w, h)
	case "alt+G":
		if !composerEmpty {
			return false
		}
		t.Bottom()
	default:
		return false
	}
	return true
}

// Scroll moves the view by delta rows (negative = up). Scrolling down onto
// the last row re-pins the view to the bottom.
func (t *Transcript) Scroll(delta, w, h int) {
	if len(t.cells) == 0 || delta == 0 {
		return
	}
	if t.follow {
		if delta > 0 {
			return
		}
		t.anchor, t.follow = t.topOfBottom(w, h), false
	}
	p := t.anchor
	p.row += delta
	for p.row < 0 && p.cell > 0 {
		p.cell--
		p.row += t.blockLen(p.cell, w)
	}
	if p.row < 0 {
		p.row = 0
	}
	for p.cell < len(t.cells)-1 && p.row >= t.blockLen(p.cell, w) {
		p.row -= t.blockLen(p.cell, w)
		p.cell++
	}
	t.anchor = p
	if t.atBottom(w, h) {
		t.Bottom()
	}
}

// atBottom reports whether the anchored view already shows the last row.
func (t *Transcript) atBottom(w, h int) bool {
	bottom := t.topOfBottom(w, h)
	return t.anchor.cell > bottom.cell || (t.anchor.cell == bottom.cell && t.anchor.row >= bottom.row)
}

// Top jumps to the first row.
func (t *Transcript) Top(w, h int) {
	t.anchor, t.follow = position{}, false
	if t.atBottom(w, h) {
		t.Bottom()
	}
}

// Bottom re-pins the view to the newest output.
func (t *Transcript) Bottom() {
	t.follow, t.newBelow = true, false
}

// Remove deletes cell c (an empty streaming reply), keeping the anchor on
// the cell it pointed at.
func (t *Transcript) Remove(c *Cell) {
	for i := len(t.cells) - 1; i >= 0; i-- {
		if t.cells[i] != c {
			continue
		}
		t.cells = append(t.cells[:i], t.cells[i+1:]...)
		if t.anchor.cell > i || t.anchor.cell >= len(t.cells) {
			t.anchor = position{cell: max(t.anchor.cell-1, 0)}
		}
		return
	}
}
