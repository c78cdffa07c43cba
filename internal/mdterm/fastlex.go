package mdterm

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
)

// The fast tokenisers (fastlex_*.go) give the token types chroma's lexers
// (third_party/chromalexers/embedded/*.xml) give, without regular
// expressions. Why hand-written: chroma's regexp2 lexers try their rules
// one after another at every token and allocate at each match — 2,000 lines
// of Python took 190–226 ms of CPU, 90 % of it regexp matching
// (docs/PERFORMANCE.md, issue 14); no pure-Go library tokenises these
// languages with chroma's token types (the regexp-free alternatives are
// tree-sitter, which needs cgo, and per-language parsers such as
// mvdan.cc/sh or go/scanner, which give syntax trees and not chroma's
// colours). Each tokeniser here is a loop over bytes on the shared cursor
// below, with the language's word lists copied from its chroma definition;
// TestFastLexersMatchChroma holds each to chroma's types over real code.

// cursor is the shared core of the fast tokenisers: a position in src and
// the coalesced spans emitted so far. Invariant: the spans tile src[:pos].
type cursor struct {
	src   string
	pos   int
	spans []tokSpan
	reset bool              // a nested state met a newline it has no rule for: back to root
	stack []uint8           // the state stack of a tokeniser driven by run; state 0 is root
	found map[string][2]int // find's last search for each string: from, result
}

// find is the index of the first t in src at or after from, -1 when there
// is none. It remembers its last answer for each t: a tokeniser searches
// forward, so the searches for one t cost linear time together, and a
// failed search (an unterminated r#"…) is not repeated to the end of a
// large block from every later position.
func (c *cursor) find(t string, from int) int {
	if m, ok := c.found[t]; ok && from >= m[0] && (m[1] < 0 || from <= m[1]) {
		return m[1]
	}
	i := strings.Index(c.src[from:], t)
	if i >= 0 {
		i += from
	}
	if c.found == nil {
		c.found = map[string][2]int{}
	}
	c.found[t] = [2]int{from, i}
	return i
}

// run drives a tokeniser written as chroma's states: step tries the rules
// of the state on top of the stack at pos and reports whether one matched
// (consuming text or changing the stack). Where none matches, a newline
// outside root takes the stack back to root and anything else is one Error
// rune, as in chroma's RegexLexer. A step that neither consumes nor changes
// the stack 64 times at one place is taken as no match (no input can make
// a tokeniser loop).
func (c *cursor) run(step func(state uint8) bool) {
	c.stack = append(c.stack[:0], 0)
	stuck, at := 0, -1
	for c.pos < len(c.src) {
		if c.pos != at {
			stuck, at = 0, c.pos
		}
		st := c.stack[len(c.stack)-1]
		if stuck++; stuck < 64 && step(st) {
			continue
		}
		if c.src[c.pos] == '\n' && st != 0 {
			c.stack = c.stack[:1]
			continue
		}
		c.errorRune()
	}
}

func (c *cursor) push(s uint8) { c.stack = append(c.stack, s) }

// pop leaves root in place (chroma would stop lexing there; no rule of
// ours pops root).
func (c *cursor) pop() {
	if len(c.stack) > 1 {
		c.stack = c.stack[:len(c.stack)-1]
	}
}

// withNewline runs lex over src with a newline added when it lacks one
// (chroma's ensure_nl) and cuts that newline off the tokens again.
func withNewline(src string, lex func(string) []chroma.Token) []chroma.Token {
	if strings.HasSuffix(src, "\n") || src == "" {
		return lex(src)
	}
	toks := lex(src + "\n")
	last := &toks[len(toks)-1] // the added newline is the last byte of the last token
	if last.Value = last.Value[:len(last.Value)-1]; last.Value == "" {
		toks = toks[:len(toks)-1]
	}
	return toks
}

func newCursor(src string) *cursor {
	return &cursor{src: src, spans: make([]tokSpan, 0, len(src)/6+1)}
}

// emit types src[pos:end] and moves past it; nothing when end <= pos.
func (c *cursor) emit(t chroma.TokenType, end int) {
	if end > c.pos {
		c.spans = appendSpan(c.spans, t, c.pos, end)
		c.pos = end
	}
}

// errorRune emits one rune as an Error token, as chroma does where no rule
// of the state matches.
func (c *cursor) errorRune() {
	_, n := utf8.DecodeRuneInString(c.src[c.pos:])
	c.emit(chroma.Error, c.pos+max(n, 1))
}

// at is the byte at pos+i, 0 past the end.
func (c *cursor) at(i int) byte {
	if j := c.pos + i; j < len(c.src) {
		return c.src[j]
	}
	return 0
}

func (c *cursor) has(prefix string) bool { return strings.HasPrefix(c.src[c.pos:], prefix) }

func (c *cursor) tokens() []chroma.Token {
	toks := make([]chroma.Token, len(c.spans))
	for i, sp := range c.spans {
		toks[i] = chroma.Token{Type: sp.typ, Value: c.src[sp.start:sp.end]}
	}
	return toks
}

// lineEnd is the index of the newline at or after i, or len(src).
func lineEnd(src string, i int) int {
	if j := strings.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(src)
}

// runeAt decodes the rune at i (ASCII without a call).
func runeAt(src string, i int) (rune, int) {
	if i >= len(src) {
		return -1, 0
	}
	if b := src[i]; b < utf8.RuneSelf {
		return rune(b), 1
	}
	return utf8.DecodeRuneInString(src[i:])
}

func isDigit(b byte) bool     { return '0' <= b && b <= '9' }
func isHex(b byte) bool       { return isDigit(b) || 'a' <= b|0x20 && b|0x20 <= 'f' }
func isASCIIWord(b byte) bool { return isASCIIStart(b) || isDigit(b) }

// isWord is regexp2's \w: letters, marks, decimal digits, connectors.
func isWord(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIWord(byte(r))
	}
	return unicode.In(r, unicode.L, unicode.Mn, unicode.Nd, unicode.Pc)
}

// isSpace is regexp2's \s.
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return r >= utf8.RuneSelf && unicode.IsSpace(r)
}

// wordEnd is the end of the run of \w from i.
func wordEnd(src string, i int) int {
	for i < len(src) {
		if b := src[i]; b < utf8.RuneSelf {
			if !isASCIIWord(b) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(src[i:])
		if !isWord(r) {
			return i
		}
		i += n
	}
	return i
}

// wordBoundaryAt reports whether regexp2's \b holds before src[i], given
// that src[i-1] is a word character.
func wordBoundaryAt(src string, i int) bool {
	r, n := runeAt(src, i)
	return n == 0 || !isWord(r)
}

// identEnd is the end of an identifier [_\p{L}][_\p{L}\p{N}]* at i (i when
// there is none).
func identEnd(src string, i int) int {
	start := i
	for i < len(src) {
		b := src[i]
		if b < utf8.RuneSelf {
			if !(isASCIIStart(b) || i > start && isDigit(b)) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(src[i:])
		if !(unicode.IsLetter(r) || i > start && unicode.IsNumber(r)) {
			return i
		}
		i += n
	}
	return i
}

// spaceEnd is the end of the run of regexp2's \s from i; newline false
// leaves newlines out ([^\S\n]).
func spaceEnd(src string, i int, newline bool) int {
	for i < len(src) {
		r, n := runeAt(src, i)
		if !isSpace(r) || r == '\n' && !newline {
			return i
		}
		i += n
	}
	return i
}

// words is one language's word lists, copied from its chroma definition as
// "a|b|c" strings and turned into a map on first use (nothing at start-up).
type words struct {
	once   sync.Once
	groups []wordGroup
	m      map[string]chroma.TokenType
}

// wordGroup is the words a chroma rule gives one token type.
type wordGroup struct {
	typ   chroma.TokenType
	words string
}

// lookup is the type of word, the first group's that lists it.
func (w *words) lookup(word string) (chroma.TokenType, bool) {
	w.once.Do(func() {
		w.m = map[string]chroma.TokenType{}
		for _, g := range w.groups {
			for _, word := range strings.Split(g.words, "|") {
				if _, dup := w.m[word]; !dup {
					w.m[word] = g.typ
				}
			}
		}
	})
	t, ok := w.m[word]
	return t, ok
}

// ensureLF turns \r\n and \r into \n, as chroma's Tokenise does.
func ensureLF(src string) string {
	if strings.IndexByte(src, '\r') < 0 {
		return src
	}
	return strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
}

// quotedEnd is the end of "(\\\\|\\"|[^"])*" at p, or of its
// single-quoted twin (a string that may span lines), 0 when it does not match; where there is no closing quote the
// regexp backtracks to the last escaped one.
func quotedEnd(s string, p int) int {
	q := s[p]
	lastEscaped := -1
	for i := p + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) && (s[i+1] == '\\' || s[i+1] == q) {
				if s[i+1] == q {
					lastEscaped = i + 1
				}
				i++
			}
		case q:
			return i + 1
		}
	}
	return lastEscaped + 1
}
