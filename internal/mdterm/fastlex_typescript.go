package mdterm

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// tsWord lexes typescript.xml's root rules from its keywords on: word
// lists, `module "name"`, types and late keywords, `name() {`,
// `name: type`, names, numbers and decorators.
func (d *jsDialect) tsWord(c *cursor) bool {
	s, p := c.src, c.pos
	if end := wordEnd(s, p); end > p {
		word := s[p:end]
		if t, ok := d.words.lookup(word); ok {
			c.emit(t, end)
			if t == chroma.Keyword || t == chroma.KeywordDeclaration {
				c.push(jsRegexStart)
			}
			return true
		}
		if !wordRuneBefore(s, p) {
			if word == "module" && tsModule(c, end) {
				return true
			}
			if t, ok := tsLateWords.lookup(word); ok {
				c.emit(t, end)
				return true
			}
		}
	}
	if run := tsNameRun(s, p); run > p {
		if isASCIIStart(s[p]) || s[p] == '$' {
			if strings.HasPrefix(s[run:], "() {") {
				c.emit(chroma.NameOther, run+4)
				c.push(jsRegexStart)
				return true
			}
		}
		colon := spaceEnd(s, run, true)
		if colon < len(s) && s[colon] == ':' {
			typ := spaceEnd(s, colon+1, true)
			if end := tsNameRun(s, typ); end > typ {
				c.emit(chroma.NameOther, run)
				c.emit(chroma.Text, typ)
				c.emit(chroma.KeywordType, end)
				return true
			}
		}
	}
	switch b := s[p]; {
	case isASCIIStart(b) || b == '$':
		c.emit(chroma.NameOther, wordEnd(s, p+1))
	case isDigit(b):
		c.emit(tsNumber(s, p))
	case b == '@' && wordEnd(s, p+1) > p+1:
		c.emit(chroma.KeywordDeclaration, wordEnd(s, p+1))
	default:
		return false
	}
	return true
}

// tsModule matches (module)(\s+)("[\w\./@]+")(\s+) from the word's end.
func tsModule(c *cursor, end int) bool {
	s := c.src
	q := spaceEnd(s, end, true)
	if q == end || q >= len(s) || s[q] != '"' {
		return false
	}
	i := q + 1
	for i < len(s) {
		if r, n := runeAt(s, i); isWord(r) || r == '.' || r == '/' || r == '@' {
			i += n
			continue
		}
		break
	}
	if i == q+1 || i >= len(s) || s[i] != '"' {
		return false
	}
	after := spaceEnd(s, i+1, true)
	if after == i+1 {
		return false
	}
	c.emit(chroma.KeywordReserved, end)
	c.emit(chroma.Text, q)
	c.emit(chroma.NameOther, i+1)
	c.emit(chroma.Text, after)
	c.push(jsRegexStart)
	return true
}

// tsNameRun is the end of [\w?.$]+ at i (i when none).
func tsNameRun(s string, i int) int {
	for i < len(s) {
		if b := s[i]; b == '?' || b == '.' || b == '$' {
			i++
			continue
		}
		if j := wordEnd(s, i); j > i {
			i = j
			continue
		}
		break
	}
	return i
}

// tsNumber matches [0-9][0-9]*\.[0-9]+([eE][0-9]+)?[fd]?, 0x[0-9a-fA-F]+,
// [0-9]+ at a digit.
func tsNumber(s string, p int) (chroma.TokenType, int) {
	a := p
	for a < len(s) && isDigit(s[a]) {
		a++
	}
	if a+1 < len(s) && s[a] == '.' && isDigit(s[a+1]) {
		e := a + 1
		for e < len(s) && isDigit(s[e]) {
			e++
		}
		if e+1 < len(s) && s[e]|0x20 == 'e' && isDigit(s[e+1]) {
			for e++; e < len(s) && isDigit(s[e]); e++ {
			}
		}
		if e < len(s) && (s[e] == 'f' || s[e] == 'd') {
			e++
		}
		return chroma.LiteralNumberFloat, e
	}
	if s[p] == '0' && p+2 < len(s) && s[p+1] == 'x' && isHex(s[p+2]) {
		e := p + 2
		for e < len(s) && isHex(s[e]) {
			e++
		}
		return chroma.LiteralNumberHex, e
	}
	return chroma.LiteralNumberInteger, a
}

// jsx lexes typescript.xml's jsx state at a '<'.
func (d *jsDialect) jsx(c *cursor) bool {
	s, p := c.src, c.pos
	switch {
	case c.has("<>"):
		c.emit(chroma.Punctuation, p+2)
	case c.has("</>"):
		c.emit(chroma.Punctuation, p+3)
	case tsTagName(s, p+1) > p+1:
		c.emit(chroma.Punctuation, p+1)
		c.emit(chroma.NameTag, tsTagName(s, p+1))
		c.push(jsTag)
	case c.has("</"):
		end := tsTagName(s, p+2)
		if end >= len(s) || s[end] != '>' {
			return false
		}
		c.emit(chroma.Punctuation, p+2)
		c.emit(chroma.NameTag, end)
		c.emit(chroma.Punctuation, end+1)
	default:
		return false
	}
	return true
}

// tsTagName is the end of [\w\.]* at i.
func tsTagName(s string, i int) int { return wordsOr(s, i, '.') }

// tsAttrName is the end of [\w-]+ at i.
func tsAttrName(s string, i int) int { return wordsOr(s, i, '-') }

// wordsOr is the end of a run of word characters and extra at i.
func wordsOr(s string, i int, extra byte) int {
	for i < len(s) {
		if s[i] == extra {
			i++
		} else if j := wordEnd(s, i); j > i {
			i = j
		} else {
			break
		}
	}
	return i
}

// tag lexes the inside of a JSX tag (and of a TypeScript generic, which
// chroma's rules take for one).
func (d *jsDialect) tag(c *cursor) bool {
	s, p := c.src, c.pos
	b := s[p]
	switch {
	case b == '<' && d.jsx(c):
	case b == ',':
		c.emit(chroma.Punctuation, p+1)
	case b == '"' || b == '\'':
		return d.quoted(c)
	case b == '`':
		c.emit(chroma.LiteralStringBacktick, p+1)
		c.push(jsInterp)
	case d.commentOrSpace(c):
	case b == '{' || b == '}':
		end := p
		for end < len(s) && (s[end] == '{' || s[end] == '}') {
			end++
		}
		c.emit(chroma.Punctuation, end)
	default:
		if name := tsAttrName(s, p); name > p {
			eq := spaceEnd(s, name, true)
			if eq < len(s) && s[eq] == '=' {
				c.emit(chroma.NameAttribute, eq)
				c.emit(chroma.Operator, eq+1)
				c.emit(chroma.Text, spaceEnd(s, eq+1, true))
				c.push(jsAttr)
				return true
			}
		}
		if end := tsTagName(s, p); end > p {
			c.emit(chroma.NameAttribute, end)
			return true
		}
		gt := p
		if b == '/' {
			gt++
		}
		gt = spaceEnd(s, gt, true)
		if gt < len(s) && s[gt] == '>' {
			c.emit(chroma.Punctuation, min(p+1, gt))
			c.emit(chroma.Text, gt)
			c.emit(chroma.Punctuation, gt+1)
			c.pop()
			return true
		}
		return false
	}
	return true
}

// attr lexes an attribute's value: {expression}, "…" or '…'.
func (d *jsDialect) attr(c *cursor) bool {
	switch q := c.src[c.pos]; q {
	case '{':
		c.emit(chroma.Punctuation, c.pos+1)
		c.push(jsExpression)
		return true
	case '"', '\'':
		if i := strings.IndexByte(c.src[c.pos+1:], q); i >= 0 {
			c.emit(chroma.LiteralString, c.pos+1+i+1)
			c.pop()
			return true
		}
	}
	c.pop()
	return true
}
