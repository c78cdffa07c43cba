package mdterm

import (
	"strings"

	"github.com/muesli/termenv"
	"github.com/rivo/uniseg"
)

// span is a run of inline text with its styles.
type span struct {
	text  string
	style []termenv.Style
	link  string // an OSC 8 target ("" = none)
}

// Width is the display width of plain text in terminal cells, by grapheme
// cluster: a flag (two regional indicators) or an emoji sequence is one
// wide character, as terminals draw it.
func Width(s string) int {
	if w, ok := asciiWidth(s); ok {
		return w
	}
	return uniseg.StringWidth(s)
}

// asciiWidth is the width of a string of printable ASCII and tabs, which
// is what uniseg gives (one cell a byte, a tab none) without its grapheme
// segmentation; false for any other byte.
func asciiWidth(s string) (int, bool) {
	w := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x20 && c < 0x7f:
			w++
		case c != '\t':
			return 0, false
		}
	}
	return w, true
}

// wrapSpans word-wraps spans to width; first and rest prefix the lines
// (hanging indents) and count toward the width. Consecutive words of one
// span on one line are styled as a single run. A line breaks only at a
// space: text on both sides of a span boundary with no space between
// ("`foo`." or "**bold**,") is one word, so punctuation after an inline
// span never starts a line alone.
func wrapSpans(spans []span, width int, first, rest string) []string {
	w := &wrapper{width: width, rest: rest, spans: spans, cur: -1}
	w.start(first)
	var word []piece
	for i, sp := range spans {
		for _, tok := range splitWords(sp.text) {
			if tok != " " {
				word = append(word, piece{tok, i})
				continue
			}
			w.word(word)
			word = word[:0]
			w.space(i)
		}
	}
	w.word(word)
	w.flushRun()
	if !w.empty || len(w.lines) == 0 {
		w.endLine()
	}
	return w.lines
}

// piece is the part of a word that lies in one span.
type piece struct {
	text string
	span int // index into wrapper.spans
}

type wrapper struct {
	width int
	rest  string
	spans []span
	cur   int // the span the current run belongs to
	lines []string
	line  strings.Builder
	run   strings.Builder // unstyled text of the current span on this line
	used  int
	empty bool
}

func (w *wrapper) start(prefix string) {
	w.line.Reset()
	w.line.WriteString(prefix)
	w.used, w.empty = Width(prefix), true
}

// use makes span i the current run's, writing the previous span's run.
func (w *wrapper) use(i int) {
	if w.cur != i {
		w.flushRun()
		w.cur = i
	}
}

// flushRun writes the current run; a linked run is opened and closed on
// each line it reaches, so a wrapped label stays one link and a cut line
// never leaves one open.
func (w *wrapper) flushRun() {
	if w.run.Len() > 0 {
		sp := w.spans[w.cur]
		text := styled(sp.style, w.run.String())
		if sp.link != "" {
			text = osc8Open + sp.link + st + text + osc8Open + st
		}
		w.line.WriteString(text)
		w.run.Reset()
	}
}

// OSC 8 hyperlink framing: ESC ] 8 ; params ; URI ST … ESC ] 8 ; ; ST.
const (
	osc8Open = "\x1b]8;;"
	st       = "\x1b\\"
)

func (w *wrapper) endLine() {
	w.flushRun()
	w.lines = append(w.lines, strings.TrimRight(w.line.String(), " "))
	w.start(w.rest)
}

// space writes one space of span i, unless it would start or overflow a line.
func (w *wrapper) space(i int) {
	if !w.empty && w.used+1 <= w.width {
		w.use(i)
		w.run.WriteByte(' ')
		w.used++
	}
}

// word places one word: on this line if it fits, else on the next; a word
// longer than a whole line is broken by cells.
func (w *wrapper) word(word []piece) {
	n := 0
	for _, p := range word {
		n += Width(p.text)
	}
	if n == 0 {
		return
	}
	if !w.empty && w.used+n > w.width {
		w.trimRunSpace()
		w.endLine()
	}
	for _, p := range word {
		w.use(p.span)
		w.piece(p.text)
	}
}

// piece writes text on the current line, breaking it by cells at the
// line's end.
func (w *wrapper) piece(text string) {
	for text != "" {
		room := w.width - w.used
		n := Width(text)
		if n <= room || (room <= 0 && w.empty) {
			w.run.WriteString(text)
			w.used += n
			w.empty = false
			return
		}
		head, tail := "", text
		if room > 0 {
			head, tail = cut(text, room)
		}
		if head == "" || (Width(head) > room && !w.empty) {
			w.endLine()
			continue
		}
		w.run.WriteString(head)
		w.used += Width(head)
		w.empty = false
		text = tail
		if text != "" {
			w.endLine()
		}
	}
}

// trimRunSpace drops a trailing space before a line break.
func (w *wrapper) trimRunSpace() {
	s := w.run.String()
	if strings.HasSuffix(s, " ") {
		w.run.Reset()
		w.run.WriteString(strings.TrimRight(s, " "))
	}
}

func styled(style []termenv.Style, text string) string {
	for i := len(style) - 1; i >= 0; i-- {
		text = style[i].Styled(text)
	}
	return text
}

// splitWords splits on spaces, keeping each run of spaces as one " ".
func splitWords(s string) []string {
	var out []string
	for s != "" {
		if s[0] == ' ' {
			s = strings.TrimLeft(s, " ")
			out = append(out, " ")
			continue
		}
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			i = len(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// cut splits s after at most n display cells (at least one grapheme),
// never inside a grapheme cluster.
func cut(s string, n int) (string, string) {
	if _, ok := asciiWidth(s); ok {
		return cutASCII(s, n)
	}
	w, i := 0, 0
	state := -1
	for i < len(s) {
		cluster, _, cw, st := uniseg.FirstGraphemeClusterInString(s[i:], state)
		if w+cw > n && i > 0 {
			return s[:i], s[i:]
		}
		w, i, state = w+cw, i+len(cluster), st
	}
	return s, ""
}

// cutASCII is cut for a string asciiWidth accepts: every byte is a
// grapheme cluster there.
func cutASCII(s string, n int) (string, string) {
	w := 0
	for i := 0; i < len(s); i++ {
		cw := 0
		if s[i] != '\t' {
			cw = 1
		}
		if w+cw > n && i > 0 {
			return s[:i], s[i:]
		}
		w += cw
	}
	return s, ""
}

// hardWrap breaks a code line by cells, keeping its spacing.
func hardWrap(s string, width int) []string {
	width = max(width, 4)
	if Width(s) <= width {
		return []string{s}
	}
	var out []string
	for s != "" {
		head, tail := cut(s, width)
		out = append(out, head)
		s = tail
	}
	return out
}
