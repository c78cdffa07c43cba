package mdterm

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// yamlTokens tokenises YAML as chroma's YAML lexer (yaml.xml, one state)
// does.
func yamlTokens(src string) []chroma.Token {
	c := newCursor(ensureLF(src))
	for c.pos < len(c.src) {
		if !c.yamlRoot() {
			c.errorRune()
		}
	}
	return c.tokens()
}

func (c *cursor) yamlRoot() bool {
	s, p := c.src, c.pos
	b := s[p]
	bol := p == 0 || s[p-1] == '\n'
	switch {
	case isSpaceAt(s, p):
		c.emit(chroma.TextWhitespace, spaceEnd(s, p, true))
	case bol && (c.has("---") || c.has("...")):
		c.emit(chroma.NameNamespace, p+3)
	case yamlDash(s, p) > 0:
		c.emit(chroma.Text, yamlDash(s, p))
	case b == '#' || c.has("//"):
		c.emit(chroma.Comment, lineEnd(s, p))
	case c.has("!!") && p+2 < len(s) && !isSpaceAt(s, p+2), (b == '&' || b == '*') && p+1 < len(s) && !isSpaceAt(s, p+1):
		i := p + 1
		for i < len(s) && !isSpaceAt(s, i) {
			_, n := runeAt(s, i)
			i += n
		}
		c.emit(chroma.CommentPreproc, i)
	case bol && c.has("%include") && yamlInclude(s, p) > 0:
		c.emit(chroma.CommentPreproc, yamlInclude(s, p))
	case c.yamlKey(), c.yamlValue():
	case strings.IndexByte("?:,[]", b) >= 0:
		c.emit(chroma.Punctuation, p+1)
	case b == '\n':
		return false
	default:
		_, n := runeAt(s, p)
		c.emit(chroma.Text, p+n)
	}
	return true
}

// yamlDash is the end of [\n?]?\s*- at p, 0 when none.
func yamlDash(s string, p int) int {
	i := p
	if s[i] == '\n' || s[i] == '?' {
		i++
	}
	for j := i; ; {
		// \s* backtracks: find the first "- " after white space
		if strings.HasPrefix(s[j:], "- ") {
			return j + 2
		}
		if !isSpaceAt(s, j) {
			break
		}
		_, n := runeAt(s, j)
		j += n
	}
	return 0
}

// yamlInclude is the end of ^%include\s+[^\n\r]+ at p, 0 when none.
func yamlInclude(s string, p int) int {
	i := spaceEnd(s, p+len("%include"), true)
	if i == p+len("%include") {
		return 0
	}
	// \s+ may give newlines back to leave [^\n\r]+ a character
	for i > p+len("%include") && (i >= len(s) || s[i] == '\n') {
		i--
	}
	if i == p+len("%include") {
		return 0
	}
	return lineEnd(s, i)
}

// yamlKey is the key state: "key": , - key: , key: and key:\n.
func (c *cursor) yamlKey() bool {
	s, p := c.src, c.pos
	if s[p] == '"' && p+1 < len(s) && s[p+1] != '"' && s[p+1] != '\n' && s[p+1] != '#' {
		eol := lineEnd(s, p)
		if i := strings.LastIndex(s[p+2:eol], "\": "); i >= 0 {
			c.emit(chroma.NameTag, p+2+i+3)
			return true
		}
	}
	if c.has("- ") {
		if colon, ok := yamlKeyEnd(s, p+2, ' '); ok {
			c.emit(chroma.Punctuation, p+1)
			c.emit(chroma.TextWhitespace, p+2)
			c.emit(chroma.NameTag, colon)
			c.emit(chroma.Punctuation, colon+1)
			c.emit(chroma.TextWhitespace, colon+2)
			return true
		}
	}
	for _, after := range []byte{' ', '\n'} {
		if colon, ok := yamlKeyEnd(s, p, after); ok {
			c.emit(chroma.NameTag, colon)
			c.emit(chroma.Punctuation, colon+1)
			c.emit(chroma.TextWhitespace, colon+2)
			return true
		}
	}
	return false
}

// yamlKeyEnd finds ((?:(?!//)[^"\n{#])*?)(:)(after) from i: the first ':'
// followed by after with no '"', newline, '{', '#' or "//" before it.
func yamlKeyEnd(s string, i int, after byte) (int, bool) {
	for ; i < len(s); i++ {
		if s[i] == ':' && i+1 < len(s) && s[i+1] == after {
			return i, true
		}
		if b := s[i]; b == '"' || b == '\n' || b == '{' || b == '#' || b == '/' && i+1 < len(s) && s[i+1] == '/' {
			return 0, false
		}
	}
	return 0, false
}

// yamlValue is the value state.
func (c *cursor) yamlValue() bool {
	s, p := c.src, c.pos
	b := s[p]
	if b == '|' || b == '>' {
		if end := yamlBlock(s, p); end > 0 {
			head := p + 1
			if s[head] == '+' || s[head] == '-' {
				head++
			}
			c.emit(chroma.Punctuation, head)
			c.emit(chroma.LiteralStringDoc, end)
			return true
		}
	}
	if end := wordEnd(s, p); end > p && wordBoundaryAt(s, end) {
		switch s[p:end] {
		case "false", "False", "FALSE", "true", "True", "TRUE", "null", "Off", "off", "yes", "Yes", "YES", "OFF", "On", "ON",
			"no", "No", "on", "NO", "n", "N", "Y", "y":
			c.emit(chroma.KeywordConstant, end)
			return true
		}
	}
	switch {
	case b == '"' || b == '\'':
		if end := yamlQuoted(s, p); end > 0 {
			t := chroma.LiteralStringDouble
			if b == '\'' {
				t = chroma.LiteralStringSingle
			}
			c.emit(t, end)
			return true
		}
	case isDigit(b):
		if end := yamlDate(s, p); end > 0 {
			c.emit(chroma.LiteralDate, end)
			return true
		}
	}
	if end := yamlNumber(s, p); end > 0 {
		c.emit(chroma.LiteralNumber, end)
		return true
	}
	if strings.IndexByte("{}[]?,:!-*&@\n", b) >= 0 {
		return false
	}
	eol := lineEnd(s, p)
	_, n := runeAt(s, p)
	if hash := yamlTrailingComment(s, p+n, eol); hash > 0 {
		c.emit(chroma.Literal, hash-1)
		c.emit(chroma.TextWhitespace, hash)
		c.emit(chroma.Comment, eol)
		return true
	}
	c.emit(chroma.Literal, eol)
	return true
}

// yamlTrailingComment is where (.*)( )+(#.*) or (.*)( )+(//.*) puts the
// comment in s[from:eol] (the greedy .* takes the last " #" or " //"; the
// '#' rule is tried first over the whole line), 0 when there is none.
func yamlTrailingComment(s string, from, eol int) int {
	for _, mark := range []string{" #", " //"} {
		if i := strings.LastIndex(s[from:eol], mark); i >= 0 {
			return from + i + 1
		}
	}
	return 0
}

// yamlQuoted matches "(?:\\.|[^"])*" or its single-quoted twin (\\. takes
// no newline; where there is no closing quote the regexp backtracks to
// the last escaped one).
func yamlQuoted(s string, p int) int {
	q := s[p]
	last := -1
	for i := p + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) && s[i+1] != '\n' {
				if s[i+1] == q {
					last = i + 1
				}
				_, n := runeAt(s, i+1)
				i += n
			}
		case q:
			return i + 1
		}
	}
	return last + 1
}

// yamlDate matches \d\d\d\d-\d\d-\d\d([T ]\d\d:\d\d:\d\d(\.\d+)?(Z|\s+[-+]\d+)?)?.
func yamlDate(s string, p int) int {
	shape := func(i int, pattern string) bool {
		if i+len(pattern) > len(s) {
			return false
		}
		for k := 0; k < len(pattern); k++ {
			if pattern[k] == 'd' && !isDigit(s[i+k]) || pattern[k] != 'd' && pattern[k] != s[i+k] {
				return false
			}
		}
		return true
	}
	if !shape(p, "dddd-dd-dd") {
		return 0
	}
	end := p + 10
	if end < len(s) && (s[end] == 'T' || s[end] == ' ') && shape(end+1, "dd:dd:dd") {
		end += 9
		if end+1 < len(s) && s[end] == '.' && isDigit(s[end+1]) {
			for end++; end < len(s) && isDigit(s[end]); end++ {
			}
		}
		if end < len(s) && s[end] == 'Z' {
			end++
		} else if sp := spaceEnd(s, end, true); sp > end && sp+1 < len(s) && (s[sp] == '-' || s[sp] == '+') && isDigit(s[sp+1]) {
			for end = sp + 1; end < len(s) && isDigit(s[end]); end++ {
			}
		}
	}
	return end
}

// yamlNumber matches \b[+\-]?(0x[\da-f]+|0o[0-7]+|(\d+\.?\d*|\.?\d+)(e[\+\-]?\d+)?|\.inf|\.nan)\b.
func yamlNumber(s string, p int) int {
	i := p
	if b := s[p]; !isDigit(b) && b != '+' && b != '-' && b != '.' {
		return 0
	}
	if (s[i] == '+' || s[i] == '-') && wordRuneBefore(s, p) {
		i++
	} else if wordRuneBefore(s, p) == (wordEnd(s, p) > p) {
		return 0 // no \b at p
	}
	ends := []int{}
	if strings.HasPrefix(s[i:], "0x") || strings.HasPrefix(s[i:], "0o") {
		ok := func(b byte) bool { return isDigit(b) || 'a' <= b && b <= 'f' }
		if s[i+1] == 'o' {
			ok = func(b byte) bool { return '0' <= b && b <= '7' }
		}
		j := i + 2
		for j < len(s) && ok(s[j]) {
			j++
		}
		if j > i+2 {
			ends = append(ends, j)
		}
	}
	// (\d+\.?\d*|\.?\d+)(e[\+\-]?\d+)? — every length the regexp may back off to, longest first
	for j := i; j < len(s) && isDigit(s[j]); j++ {
		ends = append(ends, yamlMantissaEnds(s, i, j+1)...)
	}
	if i < len(s) && s[i] == '.' {
		for j := i + 1; j < len(s) && isDigit(s[j]); j++ {
			ends = append(ends, yamlExponent(s, j+1)...)
		}
		if strings.HasPrefix(s[i:], ".inf") || strings.HasPrefix(s[i:], ".nan") {
			ends = append(ends, i+4)
		}
	}
	best := 0
	for _, e := range ends {
		if e > best && wordBoundaryAt2(s, e) {
			best = e
		}
	}
	return best
}

// yamlMantissaEnds is where \d+\.?\d* may end with \d+ = s[i:j], each with
// its optional exponent.
func yamlMantissaEnds(s string, i, j int) []int {
	out := yamlExponent(s, j)
	if j < len(s) && s[j] == '.' {
		out = append(out, yamlExponent(s, j+1)...)
		for k := j + 1; k < len(s) && isDigit(s[k]); k++ {
			out = append(out, yamlExponent(s, k+1)...)
		}
	}
	return out
}

// yamlExponent is i and, where one follows, the end of e[\+\-]?\d+ at i.
func yamlExponent(s string, i int) []int {
	out := []int{i}
	if i < len(s) && s[i] == 'e' {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		for k := j; k < len(s) && isDigit(s[k]); k++ {
			out = append(out, k+1)
		}
	}
	return out
}

// wordBoundaryAt2 is regexp2's \b at i on either side.
func wordBoundaryAt2(s string, i int) bool {
	r, n := runeAt(s, i)
	return wordRuneBefore(s, i) != (n > 0 && isWord(r))
}

// yamlBlock is the end of ([>|](?:[+-])?)(\n(^ {1,})(?:(?:.*\n*(?:^\3 *).*)+|.*))
// at p, 0 when it does not match: the block runs over the lines indented
// at least as far as its first (blank lines between them included).
func yamlBlock(s string, p int) int {
	i := p + 1
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if i >= len(s) || s[i] != '\n' {
		return 0
	}
	i++
	indent := 0
	for i+indent < len(s) && s[i+indent] == ' ' {
		indent++
	}
	if indent == 0 {
		return 0
	}
	end := lineEnd(s, i)
	for {
		j := end
		for j < len(s) && s[j] == '\n' {
			j++
		}
		if j == end || j+indent > len(s) || strings.Count(s[j:j+indent], " ") != indent {
			return end
		}
		end = lineEnd(s, j)
	}
}
