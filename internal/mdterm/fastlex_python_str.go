package mdterm

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// pyString lexes a string whose prefix is src[pos:q] and whose quote is at
// q: the states dqs, sqs, tdqs, tsqs and their f-string twins, with the
// escape states combined in front (none for raw strings, only {{ and }} for
// raw f-strings).
func (c *cursor) pyString(q int, raw, f bool) {
	c.emit(chroma.LiteralStringAffix, q)
	quote := c.src[q]
	typ := chroma.LiteralStringSingle
	if quote == '"' {
		typ = chroma.LiteralStringDouble
	}
	closing := string(quote)
	if strings.HasPrefix(c.src[q:], strings.Repeat(closing, 3)) {
		closing = strings.Repeat(closing, 3)
	}
	c.emit(typ, q+len(closing))
	triple := len(closing) == 3
	for c.pos < len(c.src) && !c.reset {
		b := c.src[c.pos]
		if f && (c.has("{{") || c.has("}}")) {
			c.emit(chroma.LiteralStringEscape, c.pos+2)
			continue
		}
		if b == '\\' && !raw {
			if n := c.pyEscape(); n > 0 {
				c.emit(chroma.LiteralStringEscape, c.pos+n)
				continue
			}
		}
		if c.has(closing) {
			c.emit(typ, c.pos+len(closing))
			return
		}
		if n := c.at(1); b == '\\' && !triple && (n == '\\' || n == quote || n == '\n') {
			c.emit(chroma.LiteralStringEscape, c.pos+2)
			continue
		}
		if c.pyStringPart(typ, f) {
			continue
		}
		if !triple { // b is '\n': no rule, so back to root
			c.reset = true
			return
		}
		c.emit(typ, c.pos+1)
	}
}

// pyStringPart lexes the strings-double/-single rules (fstrings-… for an
// f-string); false at a newline.
func (c *cursor) pyStringPart(typ chroma.TokenType, f bool) bool {
	b := c.src[c.pos]
	switch {
	case b == '\n':
		return false
	case b == '\\' || b == '"' || b == '\'':
		c.emit(typ, c.pos+1)
	case f && b == '}':
		c.emit(chroma.LiteralStringInterpol, c.pos+1)
	case f && b == '{':
		c.emit(chroma.LiteralStringInterpol, c.pos+1)
		c.pyFExpr()
	case !f && (b == '%' || b == '{'):
		n := c.pyFormatField()
		if b == '%' {
			n = pyPercent(c.src[c.pos:])
		}
		if n > 0 {
			c.emit(chroma.LiteralStringInterpol, c.pos+n)
		} else if c.has("{{") {
			c.emit(typ, c.pos+2)
		} else {
			c.emit(typ, c.pos+1)
		}
	default:
		stop := "\\'\"{}\n"
		if !f {
			stop = "\\'\"%{\n"
		}
		end := len(c.src)
		if i := strings.IndexAny(c.src[c.pos:], stop); i >= 0 {
			end = c.pos + i
		}
		c.emit(typ, end)
	}
	return true
}

// pyFExpr lexes expr-inside-fstring, after an f-string's '{'.
func (c *cursor) pyFExpr() {
	for c.pos < len(c.src) && !c.reset {
		b := c.src[c.pos]
		if b == '{' || b == '(' || b == '[' {
			c.emit(chroma.Punctuation, c.pos+1)
			c.pyFInner()
			continue
		}
		if n := pyFEnd(c.src, c.pos); n > 0 {
			c.emit(chroma.LiteralStringInterpol, n)
			return
		}
		if sp := spaceEnd(c.src, c.pos, true); sp > c.pos {
			c.emit(chroma.Text, sp)
			continue
		}
		if !c.pyExpr() {
			c.errorRune()
		}
	}
}

// pyFEnd is the end of (=\s*)?(\![sraf])?[}:] at i, 0 when there is none.
func pyFEnd(src string, i int) int {
	if i < len(src) && src[i] == '=' {
		i = spaceEnd(src, i+1, true)
	}
	if i+1 < len(src) && src[i] == '!' && strings.IndexByte("sraf", src[i+1]) >= 0 {
		i += 2
	}
	if i < len(src) && (src[i] == '}' || src[i] == ':') {
		return i + 1
	}
	return 0
}

// pyFInner lexes expr-inside-fstring-inner: brackets nest, the closing one
// pops.
func (c *cursor) pyFInner() {
	for c.pos < len(c.src) && !c.reset {
		switch b := c.src[c.pos]; {
		case b == '{' || b == '(' || b == '[':
			c.emit(chroma.Punctuation, c.pos+1)
			c.pyFInner()
		case b == '}' || b == ')' || b == ']':
			c.emit(chroma.Punctuation, c.pos+1)
			return
		default:
			if sp := spaceEnd(c.src, c.pos, true); sp > c.pos {
				c.emit(chroma.Text, sp)
			} else if !c.pyExpr() {
				c.errorRune()
			}
		}
	}
}

// pyEscape is the length of stringescape's match at pos ('\\'), 0 when
// none: \\([\\abfnrtv"\']|\n|N\{.*?\}|u[a-fA-F0-9]{4}|U[a-fA-F0-9]{8}|x[a-fA-F0-9]{2}|[0-7]{1,3}).
func (c *cursor) pyEscape() int {
	s := c.src[c.pos:]
	if len(s) < 2 {
		return 0
	}
	hexRun := func(n int) int {
		if len(s) < 2+n {
			return 0
		}
		for i := 2; i < 2+n; i++ {
			if !isHex(s[i]) {
				return 0
			}
		}
		return 2 + n
	}
	switch b := s[1]; {
	case strings.IndexByte("\\abfnrtv\"'\n", b) >= 0:
		return 2
	case b == 'N' && len(s) > 2 && s[2] == '{':
		brace, eol := c.find("}", c.pos+3), c.find("\n", c.pos+3)
		if brace >= 0 && (eol < 0 || brace < eol) {
			return brace - c.pos + 1
		}
	case b == 'u':
		return hexRun(4)
	case b == 'U':
		return hexRun(8)
	case b == 'x':
		return hexRun(2)
	case '0' <= b && b <= '7':
		n := 2
		for n < 4 && n < len(s) && '0' <= s[n] && s[n] <= '7' {
			n++
		}
		return n
	}
	return 0
}

// pyPercent is the length of a %-format at s[0] == '%', 0 when none:
// %(\(\w+\))?[-#0 +]*([0-9]+|[*])?(\.([0-9]+|[*]))?[hlL]?[E-GXc-giorsaux%].
func pyPercent(s string) int {
	i := 1
	if i < len(s) && s[i] == '(' {
		if j := wordEnd(s, i+1); j > i+1 && j < len(s) && s[j] == ')' {
			i = j + 1
		}
	}
	for i < len(s) && strings.IndexByte("-#0 +", s[i]) >= 0 {
		i++
	}
	i = digitsOrStar(s, i)
	if i+1 < len(s) && s[i] == '.' && (isDigit(s[i+1]) || s[i+1] == '*') {
		i = digitsOrStar(s, i+1)
	}
	if i < len(s) && strings.IndexByte("hlL", s[i]) >= 0 {
		i++
	}
	if i < len(s) && strings.IndexByte("EFGXcdefgiorsaux%", s[i]) >= 0 {
		return i + 1
	}
	return 0
}

func digitsOrStar(s string, i int) int {
	if i < len(s) && s[i] == '*' {
		return i + 1
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// pyFormatField is the length of a str.format field at s[0] == '{', 0 when
// none: \{((\w+)((\.\w+)|(\[[^\]]+\]))*)?(\![sra])?(\:(.?[<>=\^])?[-+ ]?#?0?(\d+)?,?(\.\d+)?[E-GXb-gnosx%]?)?\}.
func (c *cursor) pyFormatField() int {
	s := c.src[c.pos:]
	i := 1
	if j := wordEnd(s, i); j > i {
		i = j
		for i < len(s) {
			if s[i] == '.' && wordEnd(s, i+1) > i+1 {
				i = wordEnd(s, i+1)
			} else if k := c.find("]", c.pos+i+1); s[i] == '[' && k > c.pos+i+1 {
				i = k - c.pos + 1
			} else {
				break
			}
		}
	}
	if i+1 < len(s) && s[i] == '!' && strings.IndexByte("sra", s[i+1]) >= 0 {
		i += 2
	}
	if i < len(s) && s[i] == '}' {
		return i + 1
	}
	if i >= len(s) || s[i] != ':' {
		return 0
	}
	i++
	var aligns []int // (.?[<>=\^])? tried as the regexp does: two characters, one, none
	if r, n := runeAt(s, i); n > 0 && r != '\n' && i+n < len(s) && strings.IndexByte("<>=^", s[i+n]) >= 0 {
		aligns = append(aligns, i+n+1)
	}
	if i < len(s) && strings.IndexByte("<>=^", s[i]) >= 0 {
		aligns = append(aligns, i+1)
	}
	for _, j := range append(aligns, i) {
		if end := pyFormatSpec(s, j); end > 0 {
			return end
		}
	}
	return 0
}

// pyFormatSpec matches [-+ ]?#?0?(\d+)?,?(\.\d+)?[E-GXb-gnosx%]?\} at i.
func pyFormatSpec(s string, i int) int {
	opt := func(set string) {
		if i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
			i++
		}
	}
	opt("-+ ")
	opt("#")
	opt("0")
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	opt(",")
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		for i++; i < len(s) && isDigit(s[i]); i++ {
		}
	}
	opt("EFGXbcdefgnosx%")
	if i < len(s) && s[i] == '}' {
		return i + 1
	}
	return 0
}

// pyNumber lexes the numbers state at a digit, or a '.' before one.
func (c *cursor) pyNumber() {
	p := c.pos
	a := pyDigits(c.src, p)
	switch {
	case a > p && a < len(c.src) && c.src[a] == '.':
		c.emit(chroma.LiteralNumberFloat, pyExponent(c.src, pyDigits(c.src, a+1)))
	case a == p: // '.' and a digit
		c.emit(chroma.LiteralNumberFloat, pyExponent(c.src, pyDigits(c.src, p+1)))
	case pyExponent(c.src, a) > a:
		end := pyExponent(c.src, a)
		if end < len(c.src) && c.src[end] == 'j' {
			end++
		}
		c.emit(chroma.LiteralNumberFloat, end)
	default:
		if c.src[p] == '0' && a == p+1 {
			if t, end := pyRadix(c.src, p); end > 0 {
				c.emit(t, end)
				return
			}
		}
		c.emit(chroma.LiteralNumberInteger, a)
	}
}

// pyRadix matches 0[oO](?:_?[0-7])+, 0[bB](?:_?[01])+, 0[xX](?:_?[a-fA-F0-9])+.
func pyRadix(s string, p int) (chroma.TokenType, int) {
	if p+2 >= len(s) {
		return 0, 0
	}
	var t chroma.TokenType
	var ok func(byte) bool
	switch s[p+1] | 0x20 {
	case 'o':
		t, ok = chroma.LiteralNumberOct, func(b byte) bool { return '0' <= b && b <= '7' }
	case 'b':
		t, ok = chroma.LiteralNumberBin, func(b byte) bool { return b == '0' || b == '1' }
	case 'x':
		t, ok = chroma.LiteralNumberHex, isHex
	default:
		return 0, 0
	}
	i := p + 2
	for {
		if i < len(s) && ok(s[i]) {
			i++
		} else if i+1 < len(s) && s[i] == '_' && ok(s[i+1]) {
			i += 2
		} else {
			break
		}
	}
	if i == p+2 {
		return 0, 0
	}
	return t, i
}

// pyDigits is the end of \d(?:_?\d)* at i (i when there is no digit).
func pyDigits(s string, i int) int {
	if i >= len(s) || !isDigit(s[i]) {
		return i
	}
	for i++; i < len(s); {
		if isDigit(s[i]) {
			i++
		} else if s[i] == '_' && i+1 < len(s) && isDigit(s[i+1]) {
			i += 2
		} else {
			break
		}
	}
	return i
}

// pyExponent is the end of an optional [eE][+-]?\d(?:_?\d)* at i.
func pyExponent(s string, i int) int {
	if i >= len(s) || s[i]|0x20 != 'e' {
		return i
	}
	j := i + 1
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	if k := pyDigits(s, j); k > j {
		return k
	}
	return i
}
