package mdterm

import (
	"github.com/alecthomas/chroma/v2"
)

// The states of chroma's JSON lexer (json.xml) that are pushed.
const (
	jsonRoot uint8 = iota
	jsonObject
	jsonAttribute
	jsonArray
)

// jsonTokens tokenises JSON as chroma's JSON lexer does.
func jsonTokens(src string) []chroma.Token {
	c := newCursor(ensureLF(src))
	c.run(c.jsonStep)
	return c.tokens()
}

func (c *cursor) jsonStep(st uint8) bool {
	b := c.src[c.pos]
	switch st {
	case jsonObject:
		switch {
		case c.jsonSpaceOrComment():
		case b == '"':
			end := quotedEnd(c.src, c.pos)
			if end == 0 {
				return false
			}
			c.emit(chroma.NameTag, end)
			c.push(jsonAttribute)
		case b == '}':
			c.emit(chroma.Punctuation, c.pos+1)
			c.pop()
		default:
			return false
		}
		return true
	case jsonAttribute:
		switch {
		case c.jsonValue():
		case b == ':':
			c.emit(chroma.Punctuation, c.pos+1)
		case b == ',':
			c.emit(chroma.Punctuation, c.pos+1)
			c.pop()
		case b == '}':
			c.emit(chroma.Punctuation, c.pos+1)
			c.pop()
			c.pop()
		default:
			return false
		}
		return true
	case jsonArray:
		switch {
		case c.jsonValue():
		case b == ',':
			c.emit(chroma.Punctuation, c.pos+1)
		case b == ']':
			c.emit(chroma.Punctuation, c.pos+1)
			c.pop()
		default:
			return false
		}
		return true
	}
	return c.jsonValue()
}

func (c *cursor) jsonSpaceOrComment() bool {
	if isSpaceAt(c.src, c.pos) {
		c.emit(chroma.Text, spaceEnd(c.src, c.pos, true))
		return true
	}
	if c.has("//") {
		if end := lineEnd(c.src, c.pos); end < len(c.src) {
			c.emit(chroma.CommentSingle, end+1)
			return true
		}
	}
	return false
}

// jsonValue is the value state: white space, simple values, comments,
// objects and arrays.
func (c *cursor) jsonValue() bool {
	s, p := c.src, c.pos
	switch b := s[p]; {
	case isSpaceAt(s, p):
		c.emit(chroma.Text, spaceEnd(s, p, true))
	case b == 't' || b == 'f' || b == 'n':
		end := wordEnd(s, p)
		switch s[p:end] {
		case "true", "false", "null":
			c.emit(chroma.KeywordConstant, end)
		default:
			return false
		}
	case b == '-' || isDigit(b):
		t, end := jsonNumber(s, p)
		if end == 0 {
			return false
		}
		c.emit(t, end)
	case b == '"':
		end := quotedEnd(s, p)
		if end == 0 {
			return false
		}
		c.emit(chroma.LiteralStringDouble, end)
	case c.jsonSpaceOrComment():
	case b == '{':
		c.emit(chroma.Punctuation, p+1)
		c.push(jsonObject)
	case b == '[':
		c.emit(chroma.Punctuation, p+1)
		c.push(jsonArray)
	default:
		return false
	}
	return true
}

// jsonNumber matches -?(0|[1-9]\d*)(\.\d+[eE](\+|-)?\d+|[eE](\+|-)?\d+|\.\d+)
// (a float) or -?(0|[1-9]\d*); end 0 when neither.
func jsonNumber(s string, p int) (chroma.TokenType, int) {
	i := p
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && isDigit(s[i]):
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return 0, 0
	}
	digits := func(j int) int {
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k == j {
			return 0
		}
		return k
	}
	exp := func(j int) int {
		if j >= len(s) || s[j]|0x20 != 'e' {
			return 0
		}
		if j+1 < len(s) && (s[j+1] == '+' || s[j+1] == '-') {
			j++
		}
		return digits(j + 1)
	}
	if i < len(s) && s[i] == '.' {
		if f := digits(i + 1); f > 0 {
			if e := exp(f); e > 0 {
				return chroma.LiteralNumberFloat, e
			}
			return chroma.LiteralNumberFloat, f
		}
	} else if e := exp(i); e > 0 {
		return chroma.LiteralNumberFloat, e
	}
	return chroma.LiteralNumberInteger, i
}
