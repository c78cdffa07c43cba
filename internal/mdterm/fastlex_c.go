package mdterm

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// The states of chroma's C lexer (c.xml).
const (
	cRoot uint8 = iota
	cStatement
	cFunction
	cString
	cMacro
	cIf0
	cClassName // C++
)

// cWords are c.xml's word rules in statements, in order.
var cWords = words{groups: []wordGroup{
	{chroma.Keyword, "restricted|volatile|continue|register|default|typedef|struct|extern|switch|sizeof|static|return|union|while|const|break|goto|enum|else|case|auto|for|asm|if|do"},
	{chroma.KeywordType, "bool|int|long|float|short|double|char|char8_t|char16_t|char32_t|unsigned|signed|void"},
	{chroma.KeywordReserved, "typename|__inline|restrict|_inline|thread|inline|naked|__m128i|__m128d|__m128|__m64|" +
		"__forceinline|__identifier|__unaligned|__declspec|__fastcall|__finally|__stdcall|__wchar_t|__assume|__except|__int32|__cdecl|__int16|__leave|__based|__raise|__int64|__noop|__int8|__w64|__try|__asm"},
	{chroma.NameBuiltin, "true|false|NULL"},
}}

// cLexer is the C or C++ tokeniser: the two lexers share most states.
type cLexer struct {
	*cursor
	cpp bool
}

func cTokens(src string) []chroma.Token   { return cLexer{cpp: false}.tokens(src) }
func cppTokens(src string) []chroma.Token { return cLexer{cpp: true}.tokens(src) }

func (d cLexer) tokens(src string) []chroma.Token {
	return withNewline(ensureLF(src), func(src string) []chroma.Token {
		c := &cLexer{cursor: newCursor(src), cpp: d.cpp}
		c.run(c.cStep)
		return c.cursor.tokens()
	})
}

// nested lexes src[pos:end] with a lexer of its own that starts at root
// (chroma's UsingSelf("root")) and emits its tokens here.
func (c *cLexer) nested(end int) {
	sub := &cLexer{cursor: newCursor(c.src[c.pos:end]), cpp: c.cpp}
	sub.run(sub.cStep)
	for _, sp := range sub.spans {
		c.spans = appendSpan(c.spans, sp.typ, c.pos+sp.start, c.pos+sp.end)
	}
	c.pos = end
}

func (c *cLexer) cStep(st uint8) bool {
	s, p := c.src, c.pos
	b := s[p]
	switch st {
	case cRoot:
		if c.cWhitespace() || c.cFunctionRule() {
			return true
		}
		c.push(cStatement)
		return true
	case cStatement:
		switch {
		case c.cWhitespace(), c.cStatements():
		case c.cpp && b == '{':
			c.emit(chroma.Punctuation, p+1)
			c.push(cRoot)
		case c.cpp && b == '}':
			c.emit(chroma.Punctuation, p+1)
			c.pop()
		case b == '{' || b == '}':
			c.emit(chroma.Punctuation, p+1)
		case b == ';':
			c.emit(chroma.Punctuation, p+1)
			c.pop()
		default:
			return false
		}
		return true
	case cFunction:
		switch {
		case c.cWhitespace(), c.cStatements():
		case b == ';':
			c.emit(chroma.Punctuation, p+1)
		case b == '{':
			c.emit(chroma.Punctuation, p+1)
			c.push(cFunction)
		case b == '}':
			c.emit(chroma.Punctuation, p+1)
			c.pop()
		default:
			return false
		}
		return true
	case cString:
		return c.cString()
	case cMacro:
		return c.cMacro()
	case cIf0:
		return c.cIf0()
	case cClassName:
		return c.cClassName()
	}
	return false
}

// cFunctionRule is root's two rules for a function's definition and
// declaration: ((?:[\w*\s])+?(?:\s|[*]))([a-zA-Z_]\w*)(\s*\([^;]*?\))([^;{]*)(\{)
// and the same ending ([^;]*)(;), their groups 1, 3 and 4 lexed again from
// root. Group 1 and the name are a run of [\w*\s] that reaches the '(',
// the name its last word.
func (c *cLexer) cFunctionRule() bool {
	s, p := c.src, c.pos
	e := p
	for e < len(s) {
		r, n := runeAt(s, e)
		if !isWord(r) && r != '*' && !isSpace(r) {
			break
		}
		e += n
	}
	if e >= len(s) || s[e] != '(' {
		return false
	}
	nameEnd := e
	for nameEnd > p && isSpaceBefore(s, nameEnd) {
		nameEnd = lastRuneStart(s, nameEnd)
	}
	name := nameEnd
	for name > p && wordRuneBefore(s, name) {
		name = lastRuneStart(s, name)
	}
	if name == nameEnd || !isASCIIStart(s[name]) || strings.Count(s[p:name], "") < 3 {
		return false // no name, or group 1 shorter than two characters
	}
	if last := lastRuneStart(s, name); s[last] != '*' && !isSpaceAt(s, last) {
		return false
	}
	closing := strings.IndexAny(s[e:], ";)")
	if closing < 0 || s[e+closing] != ')' {
		return false
	}
	closing += e
	end := strings.IndexAny(s[closing:], ";{")
	if end < 0 {
		return false
	}
	end += closing
	brace := s[end] == '{'
	c.nested(name)
	c.emit(chroma.NameFunction, nameEnd)
	c.nested(closing + 1)
	c.nested(end)
	c.emit(chroma.Punctuation, end+1)
	if brace {
		c.push(cFunction)
	}
	return true
}

func isSpaceBefore(s string, i int) bool { return i > 0 && isSpaceAt(s, lastRuneStart(s, i)) }

// lastRuneStart is where the rune ending at i starts.
func lastRuneStart(s string, i int) int {
	i--
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

// cWhitespace is the whitespace state: preprocessor lines, white space,
// line continuations and comments.
func (c *cLexer) cWhitespace() bool {
	s, p := c.src, c.pos
	if p == 0 || s[p-1] == '\n' {
		if n := cIf0At(s, p); n > 0 {
			c.emit(chroma.CommentPreproc, n)
			c.push(cIf0)
			return true
		}
		if s[p] == '#' {
			c.emit(chroma.CommentPreproc, p+1)
			c.push(cMacro)
			return true
		}
		i := spaceEnd(s, p, true)
		if strings.HasPrefix(s[i:], "/*") {
			if j := strings.Index(s[i+2:lineEnd(s, i)], "*/"); j >= 0 {
				i = spaceEnd(s, i+2+j+2, true)
			}
		}
		if i > p && i < len(s) && s[i] == '#' {
			c.nested(i)
			if n := cIf0At(s, i); n > 0 {
				c.emit(chroma.CommentPreproc, n)
				c.push(cIf0)
			} else {
				c.emit(chroma.CommentPreproc, i+1)
				c.push(cMacro)
			}
			return true
		}
	}
	switch {
	case s[p] == '\n': // alone, so that the next line's start is tried for '#'
		c.emit(chroma.Text, p+1)
	case isSpaceAt(s, p):
		c.emit(chroma.Text, spaceEnd(s, p, true))
	case c.has("\\\n"):
		c.emit(chroma.Text, p+2)
	case c.has("//"):
		if p+2 < len(s) && s[p+2] == '\n' {
			c.emit(chroma.CommentSingle, p+3)
			return true
		}
		for k := p + 3; k < len(s); k++ {
			if s[k] == '\n' && s[k-1] != '\\' {
				c.emit(chroma.CommentSingle, k+1)
				return true
			}
		}
		return false
	case c.has("/*") || c.has("/\\\n*"):
		open := p + 2
		if s[p+1] == '\\' {
			open = p + 4
		}
		for k := open; k < len(s); k++ {
			if s[k] != '*' {
				continue
			}
			if k+1 < len(s) && s[k+1] == '/' {
				c.emit(chroma.CommentMultiline, k+2)
				return true
			}
			if strings.HasPrefix(s[k+1:], "\\\n/") {
				c.emit(chroma.CommentMultiline, k+4)
				return true
			}
		}
		c.emit(chroma.CommentMultiline, len(s))
	default:
		return false
	}
	return true
}

// cIf0At is the end of #if\s+0 at i, 0 when it is not there.
func cIf0At(s string, i int) int {
	if !strings.HasPrefix(s[i:], "#if") {
		return 0
	}
	j := spaceEnd(s, i+3, true)
	if j == i+3 || j >= len(s) || s[j] != '0' {
		return 0
	}
	return j + 1
}
