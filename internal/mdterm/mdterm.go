// Package mdterm renders the Markdown models write (headings, paragraphs,
// emphasis, inline code, fenced code, lists, block quotes, tables, rules and
// links) as styled, width-wrapped terminal lines.
//
// Why not glamour: Go runs the init of every linked package at start-up,
// and glamour brings chroma, goldmark and bluemonday, whose inits cost about
// 45 ms on this project's machines — twice the whole 20 ms start-up budget
// of `codewhale --version`. A renderer cannot be loaded lazily in Go, so the
// transcript uses this small line-oriented one, which has no init work and
// renders a streaming message in microseconds.
package mdterm

import (
	"strings"

	"github.com/muesli/termenv"
)

// Renderer renders Markdown for one colour profile. It is safe for
// concurrent use; it holds no per-render state.
type Renderer struct {
	st styles
}

type styles struct {
	profile termenv.Profile
	color   bool
	heading termenv.Style
	code    termenv.Style
	fence   termenv.Style
	link    termenv.Style
	dim     termenv.Style
	bold    termenv.Style
	italic  termenv.Style
	strike  termenv.Style
}

// New returns a renderer. color false renders without styling (NO_COLOR);
// dark picks colours for a dark background.
func New(profile termenv.Profile, color, dark bool) *Renderer {
	p := profile
	if !color {
		p = termenv.Ascii
	}
	accent, code, muted := "#7aa2f7", "#e0af68", "#737aa2"
	if !dark {
		accent, code, muted = "#1d4ed8", "#9a3412", "#6b7280"
	}
	s := termenv.Style{}
	fg := func(hex string) termenv.Style {
		if !color {
			return s
		}
		return s.Foreground(p.Color(hex))
	}
	return &Renderer{st: styles{
		profile: p, color: color,
		heading: fg(accent).Bold(),
		code:    fg(code),
		fence:   fg(code),
		link:    fg(accent).Underline(),
		dim:     fg(muted),
		bold:    s.Bold(),
		italic:  s.Italic(),
		strike:  s.CrossOut(),
	}}
}

func (s *styles) apply(st termenv.Style, text string) string {
	if !s.color || text == "" {
		return text
	}
	return st.Styled(text)
}

// Render renders src wrapped to width cells.
func (r *Renderer) Render(src string, width int) []string {
	width = max(width, 8)
	b := &blockRenderer{st: &r.st, width: width}
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(src, "\r\n", "\n"), "\n"), "\n")
	for i := 0; i < len(lines); {
		i = b.block(lines, i)
	}
	b.flushParagraph()
	out := b.out
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	for len(out) > 0 && strings.TrimSpace(out[0]) == "" {
		out = out[1:]
	}
	return out
}

// blockRenderer walks the lines of one document.
type blockRenderer struct {
	st    *styles
	width int
	out   []string
	para  []string // lines of the paragraph being collected
}

func (b *blockRenderer) emit(lines ...string) { b.out = append(b.out, lines...) }

// blank adds one empty line between blocks, never two in a row.
func (b *blockRenderer) blank() {
	if len(b.out) > 0 && b.out[len(b.out)-1] != "" {
		b.out = append(b.out, "")
	}
}

func (b *blockRenderer) flushParagraph() {
	if len(b.para) == 0 {
		return
	}
	text := strings.Join(b.para, " ")
	b.para = nil
	b.emit(wrapSpans(parseInline(text, b.st), b.width, "", "")...)
}

// block renders the block starting at lines[i] and returns the next index.
func (b *blockRenderer) block(lines []string, i int) int {
	line := lines[i]
	trimmed := strings.TrimSpace(line)
	switch {
	case trimmed == "":
		b.flushParagraph()
		b.blank()
		return i + 1
	case isFence(trimmed):
		b.flushParagraph()
		return b.fenced(lines, i)
	case isRule(trimmed):
		b.flushParagraph()
		b.emit(b.st.apply(b.st.dim, strings.Repeat("─", b.width)))
		return i + 1
	case headingLevel(trimmed) > 0:
		b.flushParagraph()
		b.blank()
		text := strings.TrimSpace(strings.TrimLeft(trimmed, "#"))
		spans := parseInline(text, b.st)
		for k := range spans {
			spans[k].style = append(spans[k].style, b.st.heading)
		}
		b.emit(wrapSpans(spans, b.width, "", "")...)
		return i + 1
	case strings.HasPrefix(trimmed, ">"):
		b.flushParagraph()
		return b.quote(lines, i)
	case listMarker(line) != nil:
		b.flushParagraph()
		return b.list(lines, i)
	case isTableRow(trimmed) && i+1 < len(lines) && isTableSeparator(strings.TrimSpace(lines[i+1])):
		b.flushParagraph()
		return b.table(lines, i)
	}
	b.para = append(b.para, trimmed)
	return i + 1
}

func isFence(t string) bool { return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") }

func isRule(t string) bool {
	if len(t) < 3 {
		return false
	}
	c := t[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] != c && t[i] != ' ' {
			return false
		}
	}
	return strings.Count(t, string(c)) >= 3
}

func headingLevel(t string) int {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ') {
		return 0
	}
	return n
}

// fenced renders a fenced code block; an unclosed fence runs to the end
// (a message still streaming).
func (b *blockRenderer) fenced(lines []string, i int) int {
	open := strings.TrimSpace(lines[i])
	marker := open[:3]
	lang := strings.TrimSpace(open[3:])
	b.blank()
	if lang != "" {
		b.emit(b.st.apply(b.st.dim, lang))
	}
	j := i + 1
	for ; j < len(lines); j++ {
		if strings.HasPrefix(strings.TrimSpace(lines[j]), marker) {
			j++
			break
		}
		code := expandTabs(lines[j])
		for _, part := range hardWrap(code, b.width-2) {
			b.emit("  " + b.st.apply(b.st.fence, part))
		}
	}
	b.blank()
	return j
}

func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

// quote renders consecutive `>` lines as one quoted block.
func (b *blockRenderer) quote(lines []string, i int) int {
	var body []string
	for ; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, ">") {
			break
		}
		body = append(body, strings.TrimSpace(strings.TrimPrefix(t, ">")))
	}
	inner := &blockRenderer{st: b.st, width: max(b.width-2, 4)}
	for k := 0; k < len(body); {
		k = inner.block(body, k)
	}
	inner.flushParagraph()
	bar := b.st.apply(b.st.dim, "│ ")
	for _, l := range inner.out {
		b.emit(bar + l)
	}
	return i
}
