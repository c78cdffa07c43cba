package mdterm

import (
	"strings"
)

// marker is a parsed list-item marker.
type marker struct {
	indent  int    // leading spaces
	bullet  string // rendered bullet ("•", "3.")
	content string // text after the marker
}

// listMarker parses `- x`, `* x`, `+ x` and `1. x` / `1) x` items.
func listMarker(line string) *marker {
	expanded := expandTabs(line)
	t := strings.TrimLeft(expanded, " ")
	indent := len(expanded) - len(t)
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		content := strings.TrimSpace(t[2:])
		if strings.HasPrefix(content, "[ ] ") || strings.HasPrefix(content, "[x] ") || strings.HasPrefix(content, "[X] ") {
			box := "☐ "
			if content[1] != ' ' {
				box = "☑ "
			}
			return &marker{indent: indent, bullet: box[:len(box)-1], content: content[4:]}
		}
		return &marker{indent: indent, bullet: "•", content: content}
	}
	n := 0
	for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	if n > 0 && n+1 < len(t) && (t[n] == '.' || t[n] == ')') && t[n+1] == ' ' {
		return &marker{indent: indent, bullet: t[:n] + ".", content: strings.TrimSpace(t[n+2:])}
	}
	return nil
}

// list renders consecutive list items (and their continuation lines) with
// hanging indents; nesting follows the source indentation.
func (b *blockRenderer) list(lines []string, i int) int {
	base := listMarker(lines[i]).indent
	for i < len(lines) {
		m := listMarker(lines[i])
		if m == nil {
			break
		}
		text := m.content
		i++
		// Continuation lines: indented text that is not a new item.
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" && listMarker(lines[i]) == nil &&
			(strings.HasPrefix(lines[i], " ") || strings.HasPrefix(lines[i], "\t")) {
			text += " " + strings.TrimSpace(lines[i])
			i++
		}
		level := max(0, (m.indent-base)/2)
		pad := strings.Repeat("  ", min(level, 6))
		first := pad + m.bullet + " "
		rest := pad + strings.Repeat(" ", Width(m.bullet)+1)
		b.emit(wrapSpans(parseInline(text, b.st), b.width, first, rest)...)
		// A blank line between items keeps the list going.
		if i+1 < len(lines) && strings.TrimSpace(lines[i]) == "" && listMarker(lines[i+1]) != nil {
			i++
		}
	}
	return i
}

func isTableRow(t string) bool { return strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 2 }

func isTableSeparator(t string) bool {
	if !isTableRow(t) {
		return false
	}
	for _, c := range t {
		if !strings.ContainsRune("|-: ", c) {
			return false
		}
	}
	return strings.Contains(t, "-")
}

func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	row = strings.TrimSuffix(row, "|")
	parts := strings.Split(row, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// table renders a pipe table with aligned columns; a table wider than the
// screen falls back to one "header: value" block per row.
func (b *blockRenderer) table(lines []string, i int) int {
	header := cells(lines[i])
	var rows [][]string
	j := i + 2
	for ; j < len(lines) && isTableRow(strings.TrimSpace(lines[j])); j++ {
		rows = append(rows, cells(lines[j]))
	}
	cols := len(header)
	widths := make([]int, cols)
	plain := func(s string) string {
		var out strings.Builder
		for _, sp := range parseInline(s, &styles{}) {
			out.WriteString(sp.text)
		}
		return out.String()
	}
	for c := 0; c < cols; c++ {
		widths[c] = Width(plain(header[c]))
		for _, r := range rows {
			if c < len(r) {
				widths[c] = max(widths[c], Width(plain(r[c])))
			}
		}
	}
	total := cols + 1
	for _, w := range widths {
		total += w + 2
	}
	b.blank()
	if total > b.width {
		for _, r := range rows {
			for c := 0; c < cols && c < len(r); c++ {
				b.emit(wrapSpans(append([]span{{text: plain(header[c]) + ": ", style: nil}}, parseInline(r[c], b.st)...), b.width, "", "  ")...)
			}
			b.blank()
		}
		return j
	}
	row := func(cs []string, bold bool) string {
		var sb strings.Builder
		sb.WriteString(b.st.apply(b.st.dim, "│"))
		for c := 0; c < cols; c++ {
			v := ""
			if c < len(cs) {
				v = cs[c]
			}
			spans := parseInline(v, b.st)
			text := strings.Join(wrapSpans(spans, 1<<20, "", ""), "")
			if bold {
				text = b.st.apply(b.st.bold, plain(v))
			}
			sb.WriteString(" " + text + strings.Repeat(" ", widths[c]-Width(plain(v))) + " ")
			sb.WriteString(b.st.apply(b.st.dim, "│"))
		}
		return sb.String()
	}
	rule := func(l, m, r string) string {
		parts := make([]string, cols)
		for c := range parts {
			parts[c] = strings.Repeat("─", widths[c]+2)
		}
		return b.st.apply(b.st.dim, l+strings.Join(parts, m)+r)
	}
	b.emit(rule("┌", "┬", "┐"), row(header, true), rule("├", "┼", "┤"))
	for _, r := range rows {
		b.emit(row(r, false))
	}
	b.emit(rule("└", "┴", "┘"))
	return j
}
