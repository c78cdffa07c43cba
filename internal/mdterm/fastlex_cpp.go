package mdterm

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// cppWords are c++.xml's: its keywords, then C's (class, struct, enum and
// union push classname before these are tried), its types and reserved
// words (wchar_t a type, no *_t rule).
var cppWords = words{groups: []wordGroup{
	{chroma.Keyword, "reinterpret_cast|static_assert|thread_local|dynamic_cast|static_cast|const_cast|co_return|protected|namespace|consteval|constexpr|typename|co_await|co_yield|operator|restrict|explicit|template|override|noexcept|requires|decltype|alignof|private|alignas|virtual|mutable|nullptr|concept|export|friend|typeid|throws|public|delete|final|throw|catch|using|this|new|try"},
	{chroma.Keyword, "restricted|volatile|continue|register|default|typedef|struct|extern|switch|sizeof|static|return|union|while|const|break|goto|enum|else|case|auto|for|asm|if|do"},
	{chroma.KeywordType, "bool|int|long|float|short|double|char|char8_t|char16_t|char32_t|wchar_t|unsigned|signed|void"},
	{chroma.KeywordReserved, "typename|__inline|restrict|_inline|thread|inline|naked|__m128i|__m128d|__m128|__m64|" +
		"__forceinline|__identifier|__unaligned|__declspec|__fastcall|__stdcall|__finally|__except|__assume|__int32|__cdecl|__int64|__based|__leave|__int16|__raise|__noop|__int8|__w64|__try|__asm"},
	{chroma.NameBuiltin, "true|false|NULL"},
}}

// cClassName is C++'s classname state, after class, struct, enum, union.
func (c *cLexer) cClassName() bool {
	s, p := c.src, c.pos
	if end := cAttribute(s, p); end > 0 {
		c.emit(chroma.NameAttribute, end)
		c.emit(chroma.Text, spaceEnd(s, end, true))
		return true
	}
	if isASCIIStart(s[p]) {
		c.emit(chroma.NameClass, wordEnd(s, p+1))
		c.pop()
		return true
	}
	if sp := spaceEnd(s, p, true); sp < len(s) && (s[sp] == '>' || s[sp] == '{') {
		c.emit(chroma.Text, sp)
		c.pop()
		return true
	}
	return false
}

// cAttribute is the end of \[\[.+\]\] at p (the last ]] on the line), 0
// when none.
func cAttribute(s string, p int) int {
	if !strings.HasPrefix(s[p:], "[[") || p+3 > len(s) {
		return 0
	}
	eol := lineEnd(s, p)
	if p+3 > eol {
		return 0
	}
	i := strings.LastIndex(s[p+3:eol], "]]")
	if i < 0 {
		return 0
	}
	return p + 3 + i + 2
}

// cppStatements lexes the rules c++.xml puts before C's: its keywords,
// enum class, class/struct/enum/union (then classname), [[attributes]] and
// u8/u/U strings. (Its raw-string rule never matches: regexp2 reads its
// {,16} as literal text.)
func (c *cLexer) cppStatements() bool {
	s, p := c.src, c.pos
	if end := wordEnd(s, p); end > p {
		word := s[p:end]
		switch t, ok := cppWords.lookup(word); {
		case word == "enum" && strings.HasPrefix(s[spaceEnd(s, end, true):], "class") && spaceEnd(s, end, true) > end && wordBoundaryAt(s, spaceEnd(s, end, true)+5):
			sp := spaceEnd(s, end, true)
			c.emit(chroma.Keyword, end)
			c.emit(chroma.Text, sp)
			c.emit(chroma.Keyword, sp+5)
			c.emit(chroma.Text, spaceEnd(s, sp+5, true))
			c.push(cClassName)
			return true
		case word == "class" || word == "struct" || word == "enum" || word == "union":
			c.emit(chroma.Keyword, end)
			c.emit(chroma.Text, spaceEnd(s, end, true))
			c.push(cClassName)
			return true
		case ok && t == chroma.Keyword && !cWordsHave(word):
			c.emit(t, end)
			return true
		}
	}
	if end := cAttribute(s, p); end > 0 {
		c.emit(chroma.NameAttribute, end)
		return true
	}
	q := p
	switch {
	case strings.HasPrefix(s[p:], "u8\""):
		q += 2
	case (s[p] == 'u' || s[p] == 'U') && p+1 < len(s) && s[p+1] == '"':
		q++
	default:
		return false
	}
	c.emit(chroma.LiteralStringAffix, q)
	c.emit(chroma.LiteralString, q+1)
	c.push(cString)
	return true
}

// cWordsHave reports whether word is one of C's keywords (C++ tries those
// after its numbers and operators, which no word can start, so the order
// only matters for C++'s own).
func cWordsHave(word string) bool {
	t, ok := cWords.lookup(word)
	return ok && t == chroma.Keyword
}

// cppInteger matches c++.xml's hex, octal, binary and decimal integers
// (with ' between digits) at a digit.
func cppInteger(s string, p int) (chroma.TokenType, int) {
	run := func(i int, ok func(byte) bool) int { // ('?[ok]+)* from i
		for i < len(s) {
			if ok(s[i]) {
				i++
			} else if s[i] == '\'' && i+1 < len(s) && ok(s[i+1]) {
				i += 2
			} else {
				break
			}
		}
		return i
	}
	suffix := func(i int) int {
		for i < len(s) && strings.IndexByte("LlUu", s[i]) >= 0 {
			i++
		}
		return i
	}
	oct := func(b byte) bool { return '0' <= b && b <= '7' }
	bin := func(b byte) bool { return b == '0' || b == '1' }
	if s[p] == '0' && p+2 < len(s) {
		switch {
		case s[p+1]|0x20 == 'x' && isHex(s[p+2]):
			return chroma.LiteralNumberHex, suffix(run(p+3, isHex))
		case oct(s[p+1]) || s[p+1] == '\'' && oct(s[p+2]):
			return chroma.LiteralNumberOct, suffix(run(p+1, oct))
		case s[p+1]|0x20 == 'b' && bin(s[p+2]):
			return chroma.LiteralNumberBin, suffix(run(p+3, bin))
		}
	}
	return chroma.LiteralNumberInteger, suffix(run(p+1, isDigit))
}

// cppInclude matches (include)(\s+)("[^"]+?"|<[^>]+?>).
func (c *cLexer) cppInclude() bool {
	s, p := c.src, c.pos
	i := spaceEnd(s, p+7, true)
	if i == p+7 || i+2 >= len(s) {
		return false
	}
	closing := byte('"')
	if s[i] == '<' {
		closing = '>'
	} else if s[i] != '"' {
		return false
	}
	j := strings.IndexByte(s[i+2:], closing)
	if j < 0 {
		return false
	}
	c.emit(chroma.CommentPreproc, p+7)
	c.emit(chroma.Text, i)
	c.emit(chroma.CommentPreprocFile, i+2+j+1)
	return true
}
