package termtext

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"
)

// Width is the display width of s in terminal cells: escape sequences count
// zero, wide (CJK) and emoji grapheme clusters count two.
func Width(s string) int { return ansi.StringWidth(s) }

// Truncate cuts s to at most w cells, ending with tail ("…") when it cut.
// Escape sequences in s are kept intact.
func Truncate(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, tail)
}

// PadRight pads s with spaces to w cells (never cuts).
func PadRight(s string, w int) string {
	if n := w - Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// Fit truncates s to w cells and pads it to exactly w.
func Fit(s string, w int) string { return PadRight(Truncate(s, w, "…"), w) }

// OneLine flattens s to a single line: newlines and tabs become spaces and
// runs of spaces collapse.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// WrapStyled wraps text that may carry SGR styling to width w: words are
// packed greedily and words longer than w are broken. The result has no
// trailing newline.
func WrapStyled(s string, w int) []string {
	if w <= 0 {
		w = 1
	}
	return strings.Split(ansi.Wrap(s, w, ""), "\n")
}

// WrapPlain wraps one line of plain text (no escapes) to width w, the pager
// rule of CONTRACT.md §14.8 (leading indentation kept): words are
// packed greedily by display width, a word longer than w is broken by
// grapheme, runs of spaces inside a line are kept, and continuation rows
// repeat the line's leading indentation when it leaves room for text. An
// empty line yields one empty row.
func WrapPlain(line string, w int) []string {
	if w <= 0 {
		w = 1
	}
	if Width(line) <= w {
		return []string{line}
	}
	indent := leadingSpace(line)
	if Width(indent) > w/2 {
		indent = ""
	}
	var rows []string
	var cur strings.Builder
	curW := 0
	flush := func() {
		rows = append(rows, strings.TrimRight(cur.String(), " "))
		cur.Reset()
		cur.WriteString(indent)
		curW = Width(indent)
	}
	for _, tok := range tokens(line) {
		tw := Width(tok)
		isSpace := tok[0] == ' '
		switch {
		case curW+tw <= w:
			cur.WriteString(tok)
			curW += tw
		case isSpace:
			flush() // a break swallows the spaces at it
		case tw <= w-Width(indent) && curW > Width(indent):
			flush()
			cur.WriteString(tok)
			curW += tw
		default:
			for _, g := range graphemes(tok) {
				gw := Width(g)
				if curW+gw > w && curW > Width(indent) {
					flush()
				}
				cur.WriteString(g)
				curW += gw
			}
		}
	}
	if s := strings.TrimRight(cur.String(), " "); s != "" && s != strings.TrimRight(indent, " ") || len(rows) == 0 {
		rows = append(rows, s)
	}
	return rows
}

func leadingSpace(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return strings.ReplaceAll(s[:i], "\t", "    ")
}

// tokens splits s into alternating runs of spaces and non-spaces.
func tokens(s string) []string {
	var out []string
	start := 0
	for i := 1; i <= len(s); i++ {
		if i == len(s) || (s[i] == ' ') != (s[start] == ' ') {
			out = append(out, s[start:i])
			start = i
		}
	}
	return out
}

func graphemes(s string) []string {
	var out []string
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		out = append(out, g.Str())
	}
	return out
}

// ExpandTabs replaces tabs with spaces to the next multiple of four cells,
// line by line, so widths and wrapping see what the terminal will draw.
func ExpandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

// Strip removes escape sequences (styling) from s.
func Strip(s string) string { return ansi.Strip(s) }
