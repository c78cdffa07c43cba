package mdterm

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// table draws a GFM table with its columns aligned as the delimiter row
// says; a table wider than the screen becomes one `header: value` block
// per row.
func (w *walker) table(t *east.Table, width int) []string {
	var rows [][]ast.Node
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []ast.Node
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, c)
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		return nil
	}
	cols := len(rows[0])
	widths := make([]int, cols)
	for _, r := range rows {
		for c := 0; c < cols && c < len(r); c++ {
			widths[c] = max(widths[c], Width(w.plainText(r[c])))
		}
	}
	total := cols + 1
	for _, cw := range widths {
		total += cw + 2
	}
	if total > width {
		return w.tableAsBlocks(rows, width)
	}
	bar := w.st.apply(w.st.dim, "│")
	line := func(cells []ast.Node, head bool) string {
		var sb strings.Builder
		sb.WriteString(bar)
		for c := 0; c < cols; c++ {
			text, cw := "", 0
			if c < len(cells) {
				spans := w.inlines(cells[c], nil)
				if head {
					spans = w.inlines(cells[c], with(nil, w.st.bold))
				}
				text, cw = strings.Join(wrapSpans(spans, 1<<20, "", ""), ""), Width(w.plainText(cells[c]))
			}
			left, right := 0, widths[c]-cw
			if c < len(t.Alignments) {
				switch t.Alignments[c] {
				case east.AlignRight:
					left, right = right, 0
				case east.AlignCenter:
					left, right = right/2, right-right/2
				}
			}
			sb.WriteString(" " + strings.Repeat(" ", left) + text + strings.Repeat(" ", right) + " " + bar)
		}
		return sb.String()
	}
	rule := func(l, m, r string) string {
		parts := make([]string, cols)
		for c := range parts {
			parts[c] = strings.Repeat("─", widths[c]+2)
		}
		return w.st.apply(w.st.dim, l+strings.Join(parts, m)+r)
	}
	out := []string{rule("┌", "┬", "┐"), line(rows[0], true), rule("├", "┼", "┤")}
	for _, r := range rows[1:] {
		out = append(out, line(r, false))
	}
	return append(out, rule("└", "┴", "┘"))
}

func (w *walker) tableAsBlocks(rows [][]ast.Node, width int) []string {
	var out []string
	head := rows[0]
	for _, r := range rows[1:] {
		if len(out) > 0 {
			out = append(out, "")
		}
		for c := 0; c < len(r) && c < len(head); c++ {
			spans := append([]span{{text: w.plainText(head[c]) + ": ", style: with(nil, w.st.bold)}}, w.inlines(r[c], nil)...)
			out = append(out, wrapSpans(spans, width, "", "  ")...)
		}
	}
	return out
}
