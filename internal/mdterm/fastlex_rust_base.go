package mdterm

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// rsBase is the base state.
func (c *cursor) rsBase() bool {
	s, p := c.src, c.pos
	b := s[p]
	switch {
	case isSpaceAt(s, p):
		c.emit(chroma.TextWhitespace, spaceEnd(s, p, true))
	case c.has("//"):
		eol := lineEnd(s, p)
		if eol == len(s) {
			return false // every // rule wants the newline
		}
		typ := chroma.CommentSingle
		if c.has("//!") || c.has("///") && (p+3 == eol || s[p+3] != '/') {
			typ = chroma.LiteralStringDoc
		}
		c.emit(typ, eol+1)
	case c.has("/**") && p+3 < len(s) && s[p+3] != '/' && s[p+3] != '*':
		_, n := runeAt(s, p+3)
		c.emit(chroma.LiteralStringDoc, p+3+n)
		c.push(rsDocComment)
	case c.has("/*!"):
		c.emit(chroma.LiteralStringDoc, p+3)
		c.push(rsDocComment)
	case c.has("/*"):
		c.emit(chroma.CommentMultiline, p+2)
		c.push(rsComment)
	case b == '"':
		c.emit(chroma.LiteralString, p+1)
		c.push(rsString)
	case b == '$':
		end := p + 1
		if e := rsIdent(s, end); e > end {
			end = e
		} else if end < len(s) && (s[end] == '(' || s[end] == ')') {
			end++
			if end < len(s) && s[end] == ',' {
				end++
			}
		} else if end < len(s) && s[end] == ',' {
			end++
		}
		c.emit(chroma.CommentPreproc, end)
	case isASCIIStart(b) && c.rsWord():
	case c.has("::") && p+2 < len(s) && !wordBoundaryAt(s, p+2):
		c.emit(chroma.Text, p+2) // ::\b
	case b == ':' || c.has("->"):
		c.emit(chroma.Text, p+1+btoi(b == '-'))
		c.push(rsTypeName)
	case b == '\'' || b == 'b' && c.at(1) == '\'':
		if !c.rsChar() {
			if b == 'b' {
				return c.rsName()
			}
			c.rsLifetimeStart()
		}
	case isDigit(b):
		c.emit(rsNumber(s, p))
		c.push(rsNumberLit)
	case c.has("b\""):
		c.emit(chroma.LiteralStringAffix, p+1)
		c.emit(chroma.LiteralString, p+2)
		c.push(rsByteString)
	case (b == 'r' || c.has("br")) && c.rsRaw():
	case c.has(".."):
		end := p + 2
		if c.at(2) == '=' {
			end++
		}
		c.emit(chroma.Operator, end)
	case strings.IndexByte("{}()[],.;", b) >= 0:
		c.emit(chroma.Punctuation, p+1)
	case strings.IndexByte("+-*/%&|<>^!~@=?", b) >= 0:
		c.emit(chroma.Operator, p+1)
	case isASCIIStart(b):
		return c.rsName()
	case c.has("#!["), c.has("#["):
		c.emit(chroma.CommentPreproc, p+1+btoi(c.at(1) == '!')+1)
		c.push(rsAttribute)
	case b == '#':
		c.emit(chroma.Text, p+1)
	default:
		return false
	}
	return true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rsWord lexes base's word rules from the keywords to the builtins, and
// '::' and ':' / '->' after them; false when the word is none of them.
func (c *cursor) rsWord() bool {
	s, p := c.src, c.pos
	end := wordEnd(s, p)
	word := s[p:end]
	if t, ok := rsWords.lookup(word); ok {
		c.emit(t, end)
		return true
	}
	switch word {
	case "mod":
		c.emit(chroma.Keyword, end)
		c.push(rsModName)
		return true
	case "let":
		c.emit(chroma.KeywordDeclaration, end)
		return true
	case "fn":
		c.emit(chroma.Keyword, end)
		c.push(rsFuncName)
		return true
	case "struct", "enum", "type", "union":
		c.emit(chroma.Keyword, end)
		c.push(rsTypeName)
		return true
	case "default":
		if sp := spaceEnd(s, end, true); sp > end {
			if w := wordEnd(s, sp); s[sp:w] == "type" || s[sp:w] == "fn" {
				c.emit(chroma.Keyword, end)
				c.emit(chroma.Text, sp)
				c.emit(chroma.Keyword, w)
				return true
			}
		}
	case "Self":
		c.emit(chroma.NameBuiltinPseudo, end)
		return true
	case "break", "continue":
		c.emit(chroma.Keyword, end)
		sp := spaceEnd(s, end, true)
		c.emit(chroma.TextWhitespace, sp)
		if sp < len(s) && s[sp] == '\'' && sp+1 < len(s) && (isASCIIStart(s[sp+1])) {
			c.emit(chroma.NameLabel, wordEnd(s, sp+1))
		}
		return true
	}
	if t, ok := rsTypeWords.lookup(word); ok {
		c.emit(t, end)
		return true
	}
	return false
}

// rsChar lexes a char literal '…' or b'…'; false when there is none.
func (c *cursor) rsChar() bool {
	s, p := c.src, c.pos
	q := p
	if s[p] == 'b' {
		q++
	}
	i := q + 1
	if i >= len(s) {
		return false
	}
	if s[i] == '\\' {
		n := rsEscape(s[i:])
		if s[p] == 'b' {
			n = 0
			if i+1 < len(s) && strings.IndexByte("'\"\\nrt0", s[i+1]) >= 0 {
				n = 2
			} else if i+3 < len(s) && s[i+1] == 'x' && isHex(s[i+2]) && isHex(s[i+3]) {
				n = 4
			}
		}
		if n > 1 && i+n < len(s) && s[i+n] == '\'' {
			c.emitChar(p, q, i+n+1)
			return true
		}
	}
	if r, n := runeAt(s, i); r != '\n' && i+n < len(s) && s[i+n] == '\'' {
		c.emitChar(p, q, i+n+1)
		return true
	}
	return false
}

func (c *cursor) emitChar(p, q, end int) {
	c.emit(chroma.LiteralStringAffix, q)
	c.emit(chroma.LiteralStringChar, end)
}

// rsNumber matches the base state's number rules at a digit.
func rsNumber(s string, p int) (chroma.TokenType, int) {
	run := func(i int, ok func(byte) bool) int {
		for i < len(s) && (ok(s[i]) || s[i] == '_') {
			i++
		}
		return i
	}
	if s[p] == '0' && p+2 < len(s) {
		var t chroma.TokenType
		var ok func(byte) bool
		switch s[p+1] {
		case 'b':
			t, ok = chroma.LiteralNumberBin, func(b byte) bool { return b == '0' || b == '1' }
		case 'o':
			t, ok = chroma.LiteralNumberOct, func(b byte) bool { return '0' <= b && b <= '7' }
		case 'x', 'X':
			t, ok = chroma.LiteralNumberHex, isHex
		}
		if ok != nil {
			if end := run(p+2, ok); end > p+2 {
				return t, end
			}
		}
	}
	a := run(p, isDigit)
	exp := func(i int) int { // [eE][+\-]?[0-9_]+
		if i < len(s) && s[i]|0x20 == 'e' {
			j := i + 1
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				j++
			}
			if k := run(j, isDigit); k > j {
				return k
			}
		}
		return 0
	}
	if a < len(s) && s[a] == '.' {
		frac := run(a+1, isDigit)
		if frac > a+1 {
			if e := exp(frac); e > 0 {
				return chroma.LiteralNumberFloat, e
			}
		}
		// \.[0-9_]*(?!\.): the digits back off until no '.' follows
		for k := frac; k >= a+1; k-- {
			if k >= len(s) || s[k] != '.' {
				return chroma.LiteralNumberFloat, k
			}
		}
	}
	if e := exp(a); e > 0 {
		return chroma.LiteralNumberFloat, e
	}
	return chroma.LiteralNumberInteger, a
}

// rsRaw lexes (?s)(b?r)(#*)(".*?"\2); false when it does not match.
func (c *cursor) rsRaw() bool {
	s, p := c.src, c.pos
	i := p + 1
	if s[p] == 'b' {
		i++
	}
	h := i
	for h < len(s) && s[h] == '#' {
		h++
	}
	if h >= len(s) || s[h] != '"' {
		return false
	}
	closing := "\"" + s[i:h]
	j := c.find(closing, h+1)
	if j < 0 {
		return false
	}
	c.emit(chroma.LiteralStringAffix, i)
	c.emit(chroma.LiteralString, j+len(closing))
	return true
}

// rsName lexes the constants, the macros and the names of base.
func (c *cursor) rsName() bool {
	s, p := c.src, c.pos
	if !wordRuneBefore(s, p) {
		if end := rsConstant(s, p); end > 0 {
			c.emit(chroma.NameConstant, end)
			return true
		}
	}
	end := rsIdent(s, p)
	if end < len(s) && s[end] == '!' {
		sp := spaceEnd(s, end+1, true)
		if rsFormatMacro(s[p:end]) && sp < len(s) && s[sp] == '(' {
			if q := spaceEnd(s, sp+1, true); q < len(s) && s[q] == '"' {
				c.emit(chroma.NameFunctionMagic, end+1)
				c.emit(chroma.TextWhitespace, sp)
				c.emit(chroma.Punctuation, sp+1)
				c.emit(chroma.TextWhitespace, q)
				c.emit(chroma.LiteralString, q+1)
				c.push(rsFormatted)
				return true
			}
		}
		if sp < len(s) && (s[sp] == '(' || s[sp] == '[' || s[sp] == '{') {
			c.emit(chroma.NameFunctionMagic, end+1)
			c.emit(chroma.TextWhitespace, sp)
			c.emit(chroma.Punctuation, sp+1)
			return true
		}
	}
	if c.has("r#") && rsIdent(s, p+2) > p+2 {
		end = rsIdent(s, p+2)
	}
	c.emit(chroma.Name, end)
	return true
}

func rsFormatMacro(name string) bool {
	switch name {
	case "print", "println", "eprint", "eprintln", "format", "format_args", "panic", "todo", "unreachable", "unimplemented":
		return true
	}
	return false
}

// rsConstant matches \b(r#)?_?([A-Z][A-Z0-9_]*){2,}\b at p (the caller
// checked the \b before), 0 when none.
func rsConstant(s string, p int) int {
	i := p
	if strings.HasPrefix(s[i:], "r#") {
		i += 2
	}
	if i < len(s) && s[i] == '_' {
		i++
	}
	end := wordEnd(s, i)
	word := s[i:end]
	if word == "" || word[0] < 'A' || word[0] > 'Z' {
		return 0 // without (r#) or _ the match would start at a character it cannot
	}
	upper := 0
	for j := 0; j < len(word); j++ {
		switch b := word[j]; {
		case 'A' <= b && b <= 'Z':
			upper++
		case isDigit(b) || b == '_':
		default:
			return 0
		}
	}
	if upper < 2 {
		return 0
	}
	return end
}
