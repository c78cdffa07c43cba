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
}

// parseInline splits text into styled spans: `code`, **bold**, *italic*,
// _italic_, ~~strike~~ and [links](url). Unclosed delimiters stay literal.
func parseInline(text string, st *styles) []span {
	var out []span
	var cur strings.Builder
	var active []termenv.Style
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, span{text: cur.String(), style: append([]termenv.Style(nil), active...)})
			cur.Reset()
		}
	}
	open := map[string]bool{}
	toggle := func(delim string, style termenv.Style) {
		flush()
		if open[delim] {
			open[delim] = false
			if len(active) > 0 {
				active = active[:len(active)-1]
			}
			return
		}
		open[delim] = true
		active = append(active, style)
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\\' && i+1 < len(text) && strings.IndexByte("\\`*_~[]()#>-!|", text[i+1]) >= 0:
			cur.WriteByte(text[i+1])
			i += 2
			continue
		case c == '`':
			n := run(text, i, '`')
			if end := strings.Index(text[i+n:], strings.Repeat("`", n)); end >= 0 {
				flush()
				code := strings.TrimSpace(text[i+n : i+n+end])
				if !st.color {
					code = "`" + code + "`" // without colour the backticks are the only marker
				}
				out = append(out, span{text: code, style: append(append([]termenv.Style(nil), active...), st.code)})
				i += n + end + n
				continue
			}
		case (c == '*' || c == '_') && run(text, i, c) >= 2:
			d := text[i : i+2]
			if open[d] || (strings.Contains(text[i+2:], d) && delimiterOK(text, i, c)) {
				toggle(d, st.bold)
				i += 2
				continue
			}
		case c == '*' || c == '_':
			d := string(c)
			if open[d] || (strings.Contains(text[i+1:], d) && delimiterOK(text, i, c)) {
				toggle(d, st.italic)
				i++
				continue
			}
		case c == '~' && run(text, i, '~') >= 2:
			if open["~~"] || strings.Contains(text[i+2:], "~~") {
				toggle("~~", st.strike)
				i += 2
				continue
			}
		case c == '[':
			if label, url, n, ok := link(text[i:]); ok {
				flush()
				out = append(out, span{text: label, style: append(append([]termenv.Style(nil), active...), st.link)})
				if url != label && !strings.HasPrefix(url, "#") {
					out = append(out, span{text: " (" + url + ")", style: []termenv.Style{st.dim}})
				}
				i += n
				continue
			}
		}
		cur.WriteByte(c)
		i++
	}
	flush()
	return out
}

// run counts repeats of c at text[i:].
func run(text string, i int, c byte) int {
	n := 0
	for i+n < len(text) && text[i+n] == c {
		n++
	}
	return n
}

// delimiterOK rejects an underscore inside a word (snake_case stays text)
// and a star surrounded by spaces (arithmetic).
func delimiterOK(text string, i int, c byte) bool {
	prevWord := i > 0 && isWordByte(text[i-1])
	if c == '_' && prevWord {
		return false
	}
	j := i + run(text, i, c)
	next := byte(' ')
	if j < len(text) {
		next = text[j]
	}
	return next != ' ' || prevWord
}

func isWordByte(b byte) bool {
	return b == '_' || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b >= 0x80
}

// link parses [label](url) at the start of s.
func link(s string) (label, url string, n int, ok bool) {
	close := strings.IndexByte(s, ']')
	if close < 1 || close+1 >= len(s) || s[close+1] != '(' {
		return "", "", 0, false
	}
	end := strings.IndexByte(s[close+2:], ')')
	if end < 0 {
		return "", "", 0, false
	}
	return s[1:close], s[close+2 : close+2+end], close + 2 + end + 1, true
}

// Width is the display width of plain text in terminal cells, by grapheme
// cluster: a flag (two regional indicators) or an emoji sequence is one
// wide character, as terminals draw it.
func Width(s string) int { return uniseg.StringWidth(s) }

// wrapSpans word-wraps spans to width; first and rest prefix the lines
// (hanging indents) and count toward the width. Consecutive words of one
// span on one line are styled as a single run.
func wrapSpans(spans []span, width int, first, rest string) []string {
	w := &wrapper{width: width, rest: rest}
	w.start(first)
	for _, sp := range spans {
		w.style = sp.style
		for _, word := range splitWords(sp.text) {
			w.word(word)
		}
		w.flushRun()
	}
	if !w.empty || len(w.lines) == 0 {
		w.endLine()
	}
	return w.lines
}

type wrapper struct {
	width int
	rest  string
	lines []string
	line  strings.Builder
	run   strings.Builder // unstyled text of the current span on this line
	style []termenv.Style
	used  int
	empty bool
}

func (w *wrapper) start(prefix string) {
	w.line.Reset()
	w.line.WriteString(prefix)
	w.used, w.empty = Width(prefix), true
}

func (w *wrapper) flushRun() {
	if w.run.Len() > 0 {
		w.line.WriteString(styled(w.style, w.run.String()))
		w.run.Reset()
	}
}

func (w *wrapper) endLine() {
	w.flushRun()
	w.lines = append(w.lines, strings.TrimRight(w.line.String(), " "))
	w.start(w.rest)
}

func (w *wrapper) word(word string) {
	if word == " " {
		if !w.empty && w.used+1 <= w.width {
			w.run.WriteByte(' ')
			w.used++
		}
		return
	}
	n := Width(word)
	if !w.empty && w.used+n > w.width {
		w.trimRunSpace()
		w.endLine()
	}
	for n > w.width-w.used && w.width-w.used > 0 && w.empty {
		// A word longer than a whole line is broken by cells.
		head, tail := cut(word, w.width-w.used)
		w.run.WriteString(head)
		w.empty = false
		word, n = tail, Width(tail)
		if word == "" {
			return
		}
		w.endLine()
	}
	w.run.WriteString(word)
	w.used += n
	w.empty = false
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
