package composer

import (
	"strings"

	"github.com/rivo/uniseg"
)

// The bubbles textarea edits the text (keys, history of the line, the
// cursor as a rune index), but it wraps and measures by rune: a flag (two
// regional indicators) or a ZWJ emoji sequence could be split over two rows
// and drawn as two broken halves (issue 14). Its wrapping is not reachable
// through its API, so the composer lays out and draws the text itself,
// by grapheme cluster with uniseg as the transcript does, and keeps the
// textarea's cursor off the inside of a cluster.

// cluster is one grapheme cluster of a logical line.
type cluster struct {
	text         string
	start, runes int // rune offset in the line, rune count
	width        int // cells
	space        bool
}

// clusters splits a line into grapheme clusters.
func clusters(line string) []cluster {
	var out []cluster
	state, start := -1, 0
	for line != "" {
		var c string
		var w int
		c, line, w, state = uniseg.FirstGraphemeClusterInString(line, state)
		n := len([]rune(c))
		out = append(out, cluster{text: c, start: start, runes: n, width: w, space: c == " " || c == "\t"})
		start += n
	}
	return out
}

// row is one display row: clusters [from, to) of logical line `line`.
type row struct {
	line, from, to int
	width          int
}

// wrapClusters packs a line's clusters into rows of at most w cells: a row
// breaks after its last space when the next word does not fit, else before
// the cluster that does not fit (a space that does not fit starts the next
// row); a cluster is never split, and every cluster lands in exactly one
// row, so a rune offset maps to one place.
func wrapClusters(cs []cluster, line, w int) []row {
	rows := []row{{line: line}}
	cur := &rows[0]
	breakAt, breakW := -1, 0 // cluster index after the row's last space, and the row width up to it
	for i, c := range cs {
		if cur.width+c.width > w && cur.to > cur.from {
			next := row{line: line, from: i, to: i}
			if breakAt > cur.from && breakAt < i {
				next.from, next.to, next.width = breakAt, i, cur.width-breakW
				cur.to, cur.width = breakAt, breakW
			}
			rows = append(rows, next)
			cur = &rows[len(rows)-1]
			breakAt = -1
		}
		cur.to, cur.width = i+1, cur.width+c.width
		if c.space {
			breakAt, breakW = i+1, cur.width
		}
	}
	return rows
}

// layout is the text laid out at width w, with the cursor's row and cell.
type layout struct {
	lines     [][]cluster
	rows      []row
	cursorRow int
	cursorCol int // cells from the row's start
}

// layoutText lays out text at w cells with the cursor at rune offset col of
// logical line line. A cursor after a full row's last cluster goes to the
// next row's start, or to a row of its own after the last one.
func layoutText(text string, w, line, col int) layout {
	w = max(w, 1)
	var l layout
	for i, s := range strings.Split(text, "\n") {
		cs := clusters(s)
		l.lines = append(l.lines, cs)
		rows := wrapClusters(cs, i, w)
		if i == line {
			r, c := cursorIn(cs, rows, col, w)
			l.cursorRow, l.cursorCol = len(l.rows)+r, c
			if r == len(rows) {
				rows = append(rows, row{line: i, from: len(cs), to: len(cs)})
			}
		}
		l.rows = append(l.rows, rows...)
	}
	return l
}

// cursorIn finds the row and cell of rune offset col among a line's rows;
// an offset inside a cluster is drawn on that cluster.
func cursorIn(cs []cluster, rows []row, col, w int) (int, int) {
	for ri, r := range rows {
		cell := 0
		for i := r.from; i < r.to; i++ {
			if col < cs[i].start+cs[i].runes {
				return ri, cell
			}
			cell += cs[i].width
		}
		last := ri == len(rows)-1
		if last {
			if cell >= w {
				return ri + 1, 0 // a full last row: the cursor gets a row of its own
			}
			return ri, cell
		}
	}
	return 0, 0
}

// text is a row's text.
func (l *layout) text(r row) string {
	var b strings.Builder
	for _, c := range l.lines[r.line][r.from:r.to] {
		b.WriteString(c.text)
	}
	return b.String()
}

// boundary returns the rune counts of the clusters just before and just
// after rune offset col of line, and whether col falls inside a cluster (in
// which case start is that cluster's first rune).
func boundary(line string, col int) (before, after int, inside bool, start int) {
	for _, c := range clusters(line) {
		switch {
		case c.start+c.runes <= col:
			before = c.runes
		case c.start == col:
			return before, c.runes, false, col
		default: // c.start < col < end
			return before, c.runes, true, c.start
		}
	}
	return before, 0, false, col
}
