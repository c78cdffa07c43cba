package mdterm

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// cStatements is the statements state: strings, characters, numbers,
// operators, punctuation, words, labels, calls and names.
func (c *cLexer) cStatements() bool {
	if c.cpp && c.cppStatements() {
		return true
	}
	s, p := c.src, c.pos
	b := s[p]
	q := p
	if b == 'L' && p+1 < len(s) && (s[p+1] == '"' || s[p+1] == '\'') {
		q++
	}
	switch {
	case s[q] == '"':
		c.emit(chroma.LiteralStringAffix, q)
		c.emit(chroma.LiteralString, q+1)
		c.push(cString)
		return true
	case s[q] == '\'':
		if end := cChar(s, q); end > 0 {
			c.emit(chroma.LiteralStringAffix, q)
			c.emit(chroma.LiteralStringChar, end)
			return true
		}
		if q > p {
			break // L is a name
		}
		return false
	case isDigit(b) || b == '.' && p+1 < len(s) && isDigit(s[p+1]):
		c.emit(cNumber(s, p, c.cpp))
		return true
	case c.has("*/"):
		c.emit(chroma.Error, p+2)
		return true
	case strings.IndexByte("~!%^&*+=|?:<>/-", b) >= 0:
		c.emit(chroma.Operator, p+1)
		return true
	case strings.IndexByte("()[],.", b) >= 0:
		c.emit(chroma.Punctuation, p+1)
		return true
	}
	return c.cWord()
}

// cChar is the end of '(\\.|\\[0-7]{1,3}|\\x[a-fA-F0-9]{1,2}|[^\\\'\n])' at q.
func cChar(s string, q int) int {
	i := q + 1
	var ends []int
	if i < len(s) && s[i] == '\\' {
		if r, n := runeAt(s, i+1); n > 0 && r != '\n' {
			ends = append(ends, i+1+n)
		}
		for k := 3; k >= 1; k-- {
			if i+1+k <= len(s) && strings.Trim(s[i+1:i+1+k], "01234567") == "" {
				ends = append(ends, i+1+k)
			}
		}
		if i+1 < len(s) && s[i+1] == 'x' {
			for k := 2; k >= 1; k-- {
				if i+2+k <= len(s) && strings.Trim(s[i+2:i+2+k], "0123456789abcdefABCDEF") == "" {
					ends = append(ends, i+2+k)
				}
			}
		}
	} else if r, n := runeAt(s, i); n > 0 && r != '\'' && r != '\n' {
		ends = append(ends, i+n)
	}
	for _, e := range ends {
		if e < len(s) && s[e] == '\'' {
			return e + 1
		}
	}
	return 0
}

// cNumber matches statements' number rules at a digit or '.'.
func cNumber(s string, p int, cpp bool) (chroma.TokenType, int) {
	digits := func(i int) int {
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		return i
	}
	suffix := func(i int) int {
		for i < len(s) && strings.IndexByte("LlUu", s[i]) >= 0 {
			i++
		}
		return i
	}
	exp := func(i int) int { // [eE][+-]?\d+ then [LlUu]*
		if i < len(s) && s[i]|0x20 == 'e' {
			j := i + 1
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				j++
			}
			if k := digits(j); k > j {
				return suffix(k)
			}
		}
		return 0
	}
	a := digits(p)
	var mantissas []int // (\d+\.\d*|\.\d+|\d+) in the regexp's order
	if a > p && a < len(s) && s[a] == '.' {
		mantissas = append(mantissas, digits(a+1))
	}
	if a == p {
		mantissas = append(mantissas, digits(p+1))
	} else {
		mantissas = append(mantissas, a)
	}
	for _, m := range mantissas {
		if e := exp(m); e > 0 {
			return chroma.LiteralNumberFloat, e
		}
	}
	f := func(i int) int { // [fF]?
		if i < len(s) && s[i]|0x20 == 'f' {
			return i + 1
		}
		return i
	}
	switch {
	case a > p && a < len(s) && s[a] == '.':
		return chroma.LiteralNumberFloat, f(digits(a + 1))
	case a == p:
		return chroma.LiteralNumberFloat, f(digits(p + 1))
	case a < len(s) && s[a]|0x20 == 'f':
		return chroma.LiteralNumberFloat, f(a + 1)
	case cpp:
		return cppInteger(s, p)
	case s[p] == '0' && p+2 < len(s) && s[p+1] == 'x' && isHex(s[p+2]):
		i := p + 2
		for i < len(s) && isHex(s[i]) {
			i++
		}
		return chroma.LiteralNumberHex, suffix(i)
	case s[p] == '0' && a > p+1 && strings.Trim(s[p+1:p+2], "01234567") == "":
		i := p + 1
		for i < len(s) && '0' <= s[i] && s[i] <= '7' {
			i++
		}
		return chroma.LiteralNumberOct, suffix(i)
	}
	return chroma.LiteralNumberInteger, suffix(a)
}

// cWord lexes the word rules, labels, calls and names.
func (c *cLexer) cWord() bool {
	s, p := c.src, c.pos
	end := wordEnd(s, p)
	if end == p {
		return false
	}
	word := s[p:end]
	table := &cWords
	if c.cpp {
		table = &cppWords
	}
	if t, ok := table.lookup(word); ok {
		c.emit(t, end)
		return true
	}
	if cIntType(word) || !c.cpp && !wordRuneBefore(s, p) && len(word) >= 3 && 'a' <= word[0] && word[0] <= 'z' && strings.HasSuffix(word, "_t") {
		c.emit(chroma.KeywordType, end)
		return true
	}
	if !isASCIIStart(s[p]) {
		return false
	}
	sp := spaceEnd(s, end, true)
	if sp < len(s) && s[sp] == ':' && (sp+1 >= len(s) || s[sp+1] != ':') {
		c.emit(chroma.NameLabel, end)
		c.emit(chroma.Text, sp)
		c.emit(chroma.Punctuation, sp+1)
		return true
	}
	if !c.cpp && sp < len(s) && s[sp] == '(' && !wordRuneBefore(s, p) {
		c.emit(chroma.NameFunction, end)
		return true
	}
	c.emit(chroma.Name, end)
	return true
}

// cIntType matches u?int(_fast|_least|)(8|16|32|64)_t.
func cIntType(w string) bool {
	w = strings.TrimPrefix(w, "u")
	if !strings.HasPrefix(w, "int") || !strings.HasSuffix(w, "_t") {
		return false
	}
	w = strings.TrimPrefix(strings.TrimPrefix(w[3:len(w)-2], "_fast"), "_least")
	return w == "8" || w == "16" || w == "32" || w == "64"
}

// cString is the string state; a newline no rule takes returns to root.
func (c *cLexer) cString() bool {
	s, p := c.src, c.pos
	switch b := s[p]; {
	case b == '"':
		c.emit(chroma.LiteralString, p+1)
		c.pop()
	case b == '\\':
		if n := cEscape(s[p:]); n > 0 {
			c.emit(chroma.LiteralStringEscape, p+n)
		} else if c.has("\\\n") {
			c.emit(chroma.LiteralString, p+2)
		} else {
			c.emit(chroma.LiteralString, p+1)
		}
	case b == '\n':
		return false
	default:
		end := len(s)
		if i := strings.IndexAny(s[p:], "\\\"\n"); i >= 0 {
			end = p + i
		}
		c.emit(chroma.LiteralString, end)
	}
	return true
}

// cEscape matches \\([\\abfnrtv"\']|x[a-fA-F0-9]{2,4}|u[a-fA-F0-9]{4}|U[a-fA-F0-9]{8}|[0-7]{1,3}).
func cEscape(s string) int {
	if len(s) < 2 {
		return 0
	}
	hexes := func(from, most int) int {
		n := 0
		for n < most && from+n < len(s) && isHex(s[from+n]) {
			n++
		}
		return n
	}
	switch b := s[1]; {
	case strings.IndexByte("\\abfnrtv\"'", b) >= 0:
		return 2
	case b == 'x':
		if n := hexes(2, 4); n >= 2 {
			return 2 + n
		}
	case b == 'u':
		if hexes(2, 4) == 4 {
			return 6
		}
	case b == 'U':
		if hexes(2, 8) == 8 {
			return 10
		}
	case '0' <= b && b <= '7':
		n := 2
		for n < 4 && n < len(s) && '0' <= s[n] && s[n] <= '7' {
			n++
		}
		return n
	}
	return 0
}

// cMacro is the macro state: a preprocessor line to its end.
func (c *cLexer) cMacro() bool {
	s, p := c.src, c.pos
	switch b := s[p]; {
	case c.has("include") && !c.cpp && c.cInclude():
	case c.has("include") && c.cpp && c.cppInclude():
	case b == '\n':
		c.emit(chroma.CommentPreproc, p+1)
		if p == 0 || s[p-1] != '\\' {
			c.pop()
		}
	case c.has("/*"):
		i := c.find("*/", p+2)
		if i < 0 {
			c.emit(chroma.CommentPreproc, p+1)
			return true
		}
		c.emit(chroma.CommentMultiline, i+2)
	case c.has("//"):
		eol := lineEnd(s, p)
		if eol == len(s) {
			c.emit(chroma.CommentPreproc, p+1)
			return true
		}
		c.emit(chroma.CommentSingle, eol+1)
		c.pop()
	case b == '/':
		c.emit(chroma.CommentPreproc, p+1)
	default:
		end := len(s)
		if i := strings.IndexAny(s[p:], "/\n"); i >= 0 {
			end = p + i
		}
		c.emit(chroma.CommentPreproc, end)
	}
	return true
}

// cInclude matches (include)(\s*(?:/[*].*?[*]/\s*)?)([^\n]+).
func (c *cLexer) cInclude() bool {
	s, p := c.src, c.pos
	i := spaceEnd(s, p+7, true)
	if strings.HasPrefix(s[i:], "/*") {
		if j := strings.Index(s[i+2:lineEnd(s, i)], "*/"); j >= 0 {
			i = spaceEnd(s, i+2+j+2, true)
		}
	}
	for i > p+7 && (i >= len(s) || s[i] == '\n') && s[i-1] == '\n' {
		i-- // \s* gives newlines back so that [^\n]+ has a character
	}
	if i >= len(s) || s[i] == '\n' {
		if i == p+7 || s[i-1] == '\n' {
			return false
		}
		i--
	}
	c.emit(chroma.CommentPreproc, p+7)
	c.emit(chroma.Text, i)
	c.emit(chroma.CommentPreprocFile, lineEnd(s, i))
	return true
}

// cIf0 is the if0 state: the lines of #if 0 as comments, nested #if
// counted, to its #else, #elif or #endif.
func (c *cLexer) cIf0() bool {
	s, p := c.src, c.pos
	if p == 0 || s[p-1] == '\n' {
		i := spaceEnd(s, p, true)
		eol := lineEnd(s, i)
		switch {
		case strings.HasPrefix(s[i:], "#if") && eol < len(s) && s[eol-1] != '\\':
			c.emit(chroma.CommentPreproc, eol+1)
			c.push(cIf0)
			return true
		case (strings.HasPrefix(s[i:], "#else") || strings.HasPrefix(s[i:], "#elif")) && eol < len(s):
			c.emit(chroma.CommentPreproc, eol+1)
			c.pop()
			return true
		case strings.HasPrefix(s[i:], "#endif") && eol < len(s) && s[eol-1] != '\\':
			c.emit(chroma.CommentPreproc, eol+1)
			c.pop()
			return true
		}
	}
	eol := lineEnd(s, p)
	if eol == len(s) {
		return false
	}
	c.emit(chroma.Comment, eol+1)
	return true
}
