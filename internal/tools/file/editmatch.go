package file

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/tools"
)

// Notes appended to an edit's result naming the fallback that matched.
const (
	noteCRLF   = " (CRLF/LF-normalized match)"
	noteIndent = " (fuzzy indentation match)"
	notePunct  = " (fuzzy punctuation match — typographic quotes/dashes normalized)"
)

// editSpan is where an edit lands in the original file bytes and the text
// that replaces that span.
type editSpan struct {
	start, end int
	text       string
	note       string
	refusal    string // why an indentation-tolerant match cannot be re-indented ("" when it can)
}

// view is a normalised copy of a text with, for each byte, the offset it
// came from in the original (orig[len(text)] is the original's length). A
// nil orig is the identity.
type view struct {
	text string
	orig []int
}

func (v view) at(i int) int {
	if v.orig == nil {
		return i
	}
	return v.orig[i]
}

// crlfView turns every "\r\n" into "\n".
func crlfView(s string) view {
	if !strings.Contains(s, "\r\n") {
		return view{text: s}
	}
	var b strings.Builder
	orig := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); i++ {
		orig = append(orig, i) // a "\r\n" maps to its '\r', where the break starts
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		b.WriteByte(s[i])
	}
	return view{text: b.String(), orig: append(orig, len(s))}
}

// punctuation maps typographic runes onto their ASCII look-alikes.
var punctuation = sync.OnceValue(func() map[rune]byte {
	return map[rune]byte{
		'‘': '\'', '’': '\'', '‚': '\'', '‛': '\'', '′': '\'',
		'“': '"', '”': '"', '„': '"', '‟': '"', '″': '"',
		'‐': '-', '‑': '-', '‒': '-', '–': '-', '—': '-', '―': '-', '−': '-',
		'\u00a0': ' ', '\u2007': ' ', '\u202f': ' ',
	}
})

// punctView applies the punctuation map on top of v.
func punctView(v view) view {
	var b strings.Builder
	orig := make([]int, 0, len(v.text)+1)
	for i, r := range v.text {
		if c, ok := punctuation()[r]; ok {
			b.WriteByte(c)
			orig = append(orig, v.at(i))
			continue
		}
		_, n := utf8.DecodeRuneInString(v.text[i:])
		b.WriteString(v.text[i : i+n])
		for k := 0; k < n; k++ {
			orig = append(orig, v.at(i+k))
		}
	}
	return view{text: b.String(), orig: append(orig, v.at(len(v.text)))}
}

func normalizePunct(s string) string { return punctView(view{text: s}).text }

func lf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// findEdit locates search in content: an exact match first, then with line
// endings normalised, then ignoring leading whitespace, then with typographic
// punctuation normalised. Each stage must find exactly one location.
func findEdit(content, search, replace, abs, display string) (editSpan, error) {
	if n := strings.Count(content, search); n == 1 {
		i := strings.Index(content, search)
		return editSpan{start: i, end: i + len(search), text: replace}, nil
	} else if n > 1 {
		return editSpan{}, nonUnique(n, abs, "")
	}
	crlf := strings.Contains(content, "\r\n")
	v, s, rep := crlfView(content), lf(search), lf(replace)
	out := func(text string) string {
		if crlf {
			return strings.ReplaceAll(text, "\n", "\r\n")
		}
		return text
	}
	if v.text != content || s != search {
		if n := strings.Count(v.text, s); n == 1 {
			i := strings.Index(v.text, s)
			return editSpan{start: v.at(i), end: v.at(i + len(s)), text: out(rep), note: noteCRLF}, nil
		} else if n > 1 {
			return editSpan{}, nonUnique(n, abs, " (after normalizing line endings)")
		}
	}
	if span, n := indentMatch(v, s, rep); n == 1 {
		if span.refusal != "" {
			return editSpan{}, tools.ExecutionFailed("The search text matches %s only when leading whitespace is "+
				"ignored, and %s, so the replacement cannot be re-indented consistently; nothing was changed. "+
				"Recovery: call File with action=\"read\" path=\"%s\" and copy the lines with their exact "+
				"indentation into `search` and `replace`.", abs, span.refusal, display)
		}
		span.text, span.note = out(span.text), noteIndent
		return span, nil
	} else if n > 1 {
		return editSpan{}, nonUnique(n, abs, " (when ignoring leading whitespace)")
	}
	pv, ps := punctView(v), normalizePunct(s)
	if n := strings.Count(pv.text, ps); n == 1 {
		i := strings.Index(pv.text, ps)
		return editSpan{start: pv.at(i), end: pv.at(i + len(ps)), text: out(rep), note: notePunct}, nil
	} else if n > 1 {
		return editSpan{}, nonUnique(n, abs, " (after normalizing typographic quotes and dashes)")
	}
	return editSpan{}, tools.ExecutionFailed("Search string not found in %s. The search text starts with:\n%s\n"+
		"Recovery: call File with action=\"read\" path=\"%s\" to see the current text, then copy the exact lines "+
		"into `search`.", abs, preview(search), display)
}

func nonUnique(n int, abs, how string) error {
	return tools.ExecutionFailed("File `edit` search is non-unique: matched %d locations in %s.%s Include more "+
		"surrounding lines in `search` so it matches exactly one location, then retry.", n, abs, how)
}

// preview is the first three lines of s, at most 200 bytes.
func preview(s string) string {
	lines := strings.SplitN(s, "\n", 4)
	if len(lines) > 3 {
		lines = lines[:3]
	}
	p := strings.Join(lines, "\n")
	if len(p) > 200 {
		p = p[:runeFloor(p, 200)] + "…"
	}
	return p
}

// indentMatch finds the windows of whole lines of v that equal the lines of
// s once leading whitespace is ignored. With exactly one, it returns the span
// and rep re-indented from s's indentation to the file's.
func indentMatch(v view, s, rep string) (editSpan, int) {
	trailing := strings.HasSuffix(s, "\n")
	want := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if strings.TrimSpace(s) == "" {
		return editSpan{}, 0
	}
	lines := strings.SplitAfter(v.text, "\n")
	starts := make([]int, len(lines)+1)
	for i, l := range lines {
		starts[i+1] = starts[i] + len(l)
	}
	hits, at := 0, -1
	for i := 0; i+len(want) <= len(lines); i++ {
		if windowMatches(lines[i:i+len(want)], want) {
			hits++
			at = i
		}
	}
	if hits != 1 {
		return editSpan{}, hits
	}
	last := at + len(want) - 1
	end := starts[last] + len(strings.TrimSuffix(lines[last], "\n"))
	if trailing && strings.HasSuffix(lines[last], "\n") {
		end++
	}
	text, refusal := reindent(rep, lines[at:at+len(want)], want)
	return editSpan{start: v.at(starts[at]), end: v.at(end), text: text, refusal: refusal}, 1
}

func windowMatches(lines, want []string) bool {
	for j, w := range want {
		if strings.TrimLeft(strings.TrimSuffix(lines[j], "\n"), " \t") != strings.TrimLeft(w, " \t") {
			return false
		}
	}
	return true
}

// reindent moves rep from the search's indentation to the file's: the
// shift measured on the first non-blank line of the match (add leading
// whitespace, or remove it) must turn every non-blank search line into its
// file line, and must apply to every non-blank line of rep; otherwise the
// result would mix indentations (a Python IndentationError), and the
// second result says why it is refused.
func reindent(rep string, fileLines, want []string) (string, string) {
	var fileIndent, searchIndent string
	for j, w := range want {
		if strings.TrimSpace(w) != "" {
			fileIndent = leadingSpace(fileLines[j])
			searchIndent = leadingSpace(w)
			break
		}
	}
	var shift func(l string) (string, bool)
	switch {
	case strings.HasPrefix(fileIndent, searchIndent):
		add := fileIndent[len(searchIndent):]
		shift = func(l string) (string, bool) { return add + l, true }
	case strings.HasPrefix(searchIndent, fileIndent):
		del := searchIndent[len(fileIndent):]
		shift = func(l string) (string, bool) {
			if !strings.HasPrefix(l, del) {
				return l, false
			}
			return l[len(del):], true
		}
	default:
		return rep, "the file indents with different characters (tabs against spaces)"
	}
	for j, w := range want {
		if strings.TrimSpace(w) == "" {
			continue
		}
		if got, ok := shift(w); !ok || leadingSpace(got) != leadingSpace(fileLines[j]) {
			return rep, fmt.Sprintf("search line %d is indented differently from the file by another amount than "+
				"its first line", j+1)
		}
	}
	out := strings.Split(rep, "\n")
	for i, l := range out {
		if strings.TrimSpace(l) == "" {
			continue
		}
		shifted, ok := shift(l)
		if !ok || !strings.HasPrefix(l, searchIndent) {
			return rep, fmt.Sprintf("replace line %d is indented less than the search's first line, where the "+
				"file's indentation is unknown", i+1)
		}
		out[i] = shifted
	}
	return strings.Join(out, "\n"), ""
}

func leadingSpace(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// identicalPayload is the refusal for search == replace.
func identicalPayload(s string) error {
	return tools.InvalidInput("search and replace are identical (%d chars, %d lines), so no change is "+
		"possible. Put the new text in `replace`, or skip this edit.", utf8.RuneCountInString(s), strings.Count(s, "\n")+1)
}

// corruptedPayload detects edit arguments that look mangled in transit
// (CONTRACT.md §6.2, edit): the brace or bracket balance of replace
// differs from search's, a multi-line braced block collapsed to an empty
// `{}` or `[]`, or a long braced search shrank to a stub. It returns the
// reason, or "" when the payload looks sound.
func corruptedPayload(search, replace string) string {
	for _, p := range [][2]string{{"{", "}"}, {"[", "]"}} {
		ds := strings.Count(search, p[0]) - strings.Count(search, p[1])
		dr := strings.Count(replace, p[0]) - strings.Count(replace, p[1])
		if ds != dr {
			return fmt.Sprintf("the `%s`/`%s` balance of replace (%+d) differs from search's (%+d), as when "+
				"arguments are truncated", p[0], p[1], dr, ds)
		}
	}
	empty := func(s string) int { return strings.Count(s, "{}") + strings.Count(s, "[]") }
	if strings.Contains(search, "\n") && strings.Contains(search, "{") && empty(replace) > empty(search) &&
		2*len(replace) < len(search) {
		return "a multi-line braced block in search collapsed to an empty `{}` or `[]` in replace"
	}
	if len(search) >= 80 && 8*len(replace) < len(search) && strings.Count(replace, "{") < strings.Count(search, "{") {
		return "replace is drastically shorter than search and lost its brace structure"
	}
	return ""
}
