package mdterm

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// The states of chroma's Rust lexer (rust.xml).
const (
	rsRoot uint8 = iota
	rsBase
	rsModName
	rsLifetime
	rsNumberLit
	rsAttribute
	rsByteString
	rsComment
	rsDocComment
	rsFuncName
	rsFormatted
	rsString
	rsTypeName
)

// rsWords are rust.xml's word rules in base, in order; the ones that push
// a state or take more than the word are handled in rsWord.
var rsWords = words{groups: []wordGroup{
	{chroma.Keyword, "unsafe|static|extern|return|const|crate|where|while|await|trait|super|async|match|impl|else|move|loop|pub|ref|mut|for|dyn|use|box|in|if|as"},
	{chroma.KeywordReserved, "abstract|override|unsized|virtual|become|typeof|final|macro|yield|priv|try|do"},
	{chroma.KeywordConstant, "true|false"},
	{chroma.NameBuiltinPseudo, "self"},
}}

// rsTypeWords are the builtin names and types that base and typename share.
var rsTypeWords = words{groups: []wordGroup{
	{chroma.KeywordType, "isize|usize|bool|char|u128|i128|i64|i32|i16|str|u64|u32|f32|f64|u16|i8|u8"},
	{chroma.NameBuiltin, "DoubleEndedIterator|ExactSizeIterator|IntoIterator|PartialOrd|PartialEq|ToString|Iterator|ToOwned|Default|Result|String|FnOnce|Extend|Option|FnMut|Unpin|Sized|AsRef|AsMut|Clone|None|From|Into|Sync|drop|Send|Drop|Copy|Some|Ord|Err|Box|Vec|Eq|Ok|Fn"},
}}

func rustTokens(src string) []chroma.Token {
	return withNewline(ensureLF(src), func(src string) []chroma.Token {
		c := newCursor(src)
		c.run(c.rsStep)
		return c.tokens()
	})
}

func (c *cursor) rsStep(st uint8) bool {
	s, p := c.src, c.pos
	b := s[p]
	switch st {
	case rsRoot:
		if c.has("#!") && p+2 < len(s) && s[p+2] != '[' && s[p+2] != '\r' && s[p+2] != '\n' {
			c.emit(chroma.CommentPreproc, lineEnd(s, p))
		} else {
			c.push(rsBase)
		}
		return true
	case rsBase:
		return c.rsBase()
	case rsModName, rsFuncName:
		typ := chroma.NameNamespace
		if st == rsFuncName {
			typ = chroma.NameFunction
		}
		if sp := spaceEnd(s, p, true); sp > p {
			c.emit(chroma.Text, sp)
		} else if end := rsIdent(s, p); end > p {
			c.emit(typ, end)
			c.pop()
		} else {
			c.pop()
		}
		return true
	case rsLifetime:
		if isASCIIStart(b) {
			c.emit(chroma.NameAttribute, wordEnd(s, p))
		} else {
			c.pop()
		}
		return true
	case rsNumberLit:
		if n := rsNumberSuffix(s[p:]); n > 0 {
			c.emit(chroma.Keyword, p+n)
		}
		c.pop()
		return true
	case rsAttribute:
		switch b {
		case '"':
			c.emit(chroma.LiteralString, p+1)
			c.push(rsString)
		case '[':
			c.emit(chroma.CommentPreproc, p+1)
			c.push(rsAttribute)
		case ']':
			c.emit(chroma.CommentPreproc, p+1)
			c.pop()
		default:
			end := len(s)
			if i := strings.IndexAny(s[p:], "\"[]"); i >= 0 {
				end = p + i
			}
			c.emit(chroma.CommentPreproc, end)
		}
		return true
	case rsComment, rsDocComment:
		typ := chroma.CommentMultiline
		if st == rsDocComment {
			typ = chroma.LiteralStringDoc
		}
		switch {
		case c.has("/*"):
			c.emit(typ, p+2)
			c.push(st)
		case c.has("*/"):
			c.emit(typ, p+2)
			c.pop()
		case b == '*' || b == '/':
			c.emit(typ, p+1)
		default:
			end := len(s)
			if i := strings.IndexAny(s[p:], "*/"); i >= 0 {
				end = p + i
			}
			c.emit(typ, end)
		}
		return true
	case rsByteString, rsString, rsFormatted:
		return c.rsString(st)
	case rsTypeName:
		return c.rsTypeName()
	}
	return false
}

// rsIdent is the end of [a-zA-Z_]\w* at p (p when none).
func rsIdent(s string, p int) int {
	if p < len(s) && isASCIIStart(s[p]) {
		return wordEnd(s, p+1)
	}
	return p
}

// rsNumberSuffix matches [ui](8|16|32|64|size) or f(32|64).
func rsNumberSuffix(s string) int {
	if len(s) < 2 {
		return 0
	}
	switch s[0] {
	case 'u', 'i':
		for _, w := range []string{"8", "16", "32", "64", "size"} {
			if strings.HasPrefix(s[1:], w) {
				return 1 + len(w)
			}
		}
	case 'f':
		if strings.HasPrefix(s[1:], "32") || strings.HasPrefix(s[1:], "64") {
			return 3
		}
	}
	return 0
}

// rsString lexes string, bytestring and formatted_string.
func (c *cursor) rsString(st uint8) bool {
	s, p := c.src, c.pos
	b := s[p]
	switch {
	case b == '"':
		c.emit(chroma.LiteralString, p+1)
		c.pop()
	case st == rsByteString && c.has("\\x") && p+3 < len(s) && strings.IndexByte("89abcdefABCDEF", s[p+2]) >= 0 && isHex(s[p+3]):
		c.emit(chroma.LiteralStringEscape, p+4)
	case b == '\\' && rsEscape(s[p:]) > 0:
		c.emit(chroma.LiteralStringEscape, p+rsEscape(s[p:]))
	case st == rsFormatted && (c.has("{{") || c.has("}}")):
		c.emit(chroma.LiteralStringEscape, p+2)
	case st == rsFormatted && b == '{':
		i := c.find("}", p)
		if i < 0 {
			return false
		}
		c.emit(chroma.LiteralStringInterpol, i+1)
	case st == rsFormatted && b == '}':
		return false
	case b == '\\':
		c.emit(chroma.LiteralString, p+1)
	default:
		stop := "\\\""
		if st == rsFormatted {
			stop = "\\\"{}"
		}
		end := len(s)
		if i := strings.IndexAny(s[p:], stop); i >= 0 {
			end = p + i
		}
		c.emit(chroma.LiteralString, end)
	}
	return true
}

// rsEscape matches \\['"\\nrt]|\\(?=\n)|\\x[0-7][0-9a-fA-F]|\\0|\\u\{[0-9a-fA-F]{1,6}\} at s[0] == '\\'.
func rsEscape(s string) int {
	if len(s) < 2 {
		return 0
	}
	switch b := s[1]; {
	case strings.IndexByte("'\"\\nrt0", b) >= 0:
		return 2
	case b == '\n':
		return 1
	case b == 'x' && len(s) > 3 && '0' <= s[2] && s[2] <= '7' && isHex(s[3]):
		return 4
	case b == 'u' && len(s) > 3 && s[2] == '{':
		i := 3
		for i < len(s) && i < 9 && isHex(s[i]) {
			i++
		}
		if i > 3 && i < len(s) && s[i] == '}' {
			return i + 1
		}
	}
	return 0
}

func (c *cursor) rsTypeName() bool {
	s, p := c.src, c.pos
	switch b := s[p]; {
	case isSpaceAt(s, p):
		c.emit(chroma.Text, spaceEnd(s, p, true))
	case b == '&':
		c.emit(chroma.KeywordPseudo, p+1)
	case b == '\'':
		c.rsLifetimeStart()
	default:
		end := rsIdent(s, p)
		if end == p {
			c.pop()
			return true
		}
		if t, ok := rsTypeWords.lookup(s[p:end]); ok {
			c.emit(t, end)
			return true
		}
		c.emit(chroma.NameClass, end)
		c.pop()
	}
	return true
}

// rsLifetimeStart lexes '(static|_) or a lifetime's quote.
func (c *cursor) rsLifetimeStart() {
	s, p := c.src, c.pos
	if strings.HasPrefix(s[p+1:], "static") {
		c.emit(chroma.NameBuiltin, p+7)
	} else if p+1 < len(s) && s[p+1] == '_' {
		c.emit(chroma.NameBuiltin, p+2)
	} else {
		c.emit(chroma.NameAttribute, p+1)
		c.push(rsLifetime)
	}
}
