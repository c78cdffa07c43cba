package mdterm

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
)

// The states of chroma's JavaScript and TypeScript lexers
// (javascript.xml, typescript.xml); the tag, attr, expression and comment
// states are TypeScript's (its JSX rules).
const (
	jsRoot uint8 = iota
	jsRegexStart
	jsBadRegex
	jsInterp
	jsInterpInside
	jsTag
	jsAttr
	jsExpression
	jsComment
)

// jsDialect is what differs between the two lexers.
type jsDialect struct {
	ts    bool
	words *words // word rules of root, in order; see jsPushes for the ones that push slashstartsregex
	flags string // a regular expression's flags
}

// jsWords are javascript.xml's word rules in root.
var jsWords = words{groups: []wordGroup{
	{chroma.Keyword, "for|in|while|do|break|return|continue|switch|case|default|if|else|throw|try|catch|finally|new|delete|typeof|instanceof|void|yield|this|of"},
	{chroma.KeywordDeclaration, "var|let|with|function"},
	{chroma.KeywordReserved, "abstract|async|await|boolean|byte|char|class|const|debugger|double|enum|export|extends|final|float|goto|implements|import|int|interface|long|native|package|private|protected|public|short|static|super|synchronized|throws|transient|using|volatile"},
	{chroma.KeywordConstant, "true|false|null|NaN|Infinity|undefined"},
	{chroma.NameBuiltin, "Array|Boolean|Date|Error|Function|Math|netscape|Number|Object|Packages|RegExp|String|Promise|Proxy|sun|decodeURI|decodeURIComponent|encodeURI|encodeURIComponent|Error|eval|isFinite|isNaN|isSafeInteger|parseFloat|parseInt|document|this|window"},
}}

// tsWords are typescript.xml's word rules in root up to its module rule;
// tsLateWords the two after it, which also want \b before the word.
var tsWords = words{groups: []wordGroup{
	{chroma.Keyword, "for|in|of|while|do|break|return|yield|continue|switch|case|default|if|else|throw|try|catch|finally|new|delete|typeof|instanceof|keyof|asserts|is|infer|await|void|this"},
	{chroma.KeywordDeclaration, "var|let|with|function"},
	{chroma.KeywordReserved, "abstract|async|boolean|class|const|debugger|enum|export|extends|from|get|global|goto|implements|import|interface|namespace|package|private|protected|public|readonly|require|set|static|super|type|using"},
	{chroma.KeywordConstant, "true|false|null|NaN|Infinity|undefined"},
	{chroma.NameBuiltin, "Array|Boolean|Date|Error|Function|Math|Number|Object|Packages|RegExp|String|decodeURI|decodeURIComponent|encodeURI|encodeURIComponent|eval|isFinite|isNaN|parseFloat|parseInt|document|this|window"},
}}

var tsLateWords = words{groups: []wordGroup{
	{chroma.KeywordType, "string|bool|number|any|never|object|symbol|unique|unknown|bigint"},
	{chroma.KeywordReserved, "constructor|declare|interface|as"},
}}

var (
	jsLang = jsDialect{words: &jsWords, flags: "gimuy"}
	tsLang = jsDialect{ts: true, words: &tsWords, flags: "gim"}
)

func javascriptTokens(src string) []chroma.Token { return withNewline(ensureLF(src), jsLang.tokens) }
func typescriptTokens(src string) []chroma.Token { return withNewline(ensureLF(src), tsLang.tokens) }

func (d *jsDialect) tokens(src string) []chroma.Token {
	c := newCursor(src)
	c.run(func(st uint8) bool { return d.step(c, st) })
	return c.tokens()
}

func (d *jsDialect) step(c *cursor, st uint8) bool {
	switch st {
	case jsRegexStart:
		return d.regexStart(c)
	case jsBadRegex:
		if c.src[c.pos] == '\n' {
			c.emit(chroma.Text, c.pos+1)
			c.pop()
			return true
		}
		return false
	case jsInterp:
		return d.interp(c)
	case jsInterpInside:
		if c.src[c.pos] == '}' {
			c.emit(chroma.LiteralStringInterpol, c.pos+1)
			c.pop()
			return true
		}
	case jsTag:
		return d.tag(c)
	case jsAttr:
		return d.attr(c)
	case jsExpression:
		switch c.src[c.pos] {
		case '{':
			c.emit(chroma.Punctuation, c.pos+1)
			c.push(jsExpression)
			return true
		case '}':
			c.emit(chroma.Punctuation, c.pos+1)
			c.pop()
			return true
		}
	case jsComment:
		switch {
		case c.has("-->"):
			c.emit(chroma.Comment, c.pos+3)
			c.pop()
		case c.src[c.pos] == '-':
			c.emit(chroma.Comment, c.pos+1)
		default:
			end := len(c.src)
			if i := strings.IndexByte(c.src[c.pos:], '-'); i >= 0 {
				end = c.pos + i
			}
			c.emit(chroma.Comment, end)
		}
		return true
	}
	return d.root(c)
}

// root is the root state (also included by interp-inside and expression).
func (d *jsDialect) root(c *cursor) bool {
	b := c.src[c.pos]
	if d.ts && b == '<' && d.jsx(c) {
		return true
	}
	if !d.ts && c.pos == 0 && c.has("#!") {
		i := 2
		if c.at(i) == ' ' {
			i++
		}
		if c.at(i) == '/' {
			c.emit(chroma.CommentHashbang, lineEnd(c.src, 0)+1)
			return true
		}
	}
	if (c.pos == 0 || c.src[c.pos-1] == '\n') && (isSpaceAt(c.src, c.pos) || b == '/' || c.has("<!--")) {
		c.push(jsRegexStart) // ^(?=\s|/|<!--)
		return true
	}
	if d.commentOrSpace(c) {
		return true
	}
	if !d.ts && d.jsNumber(c) {
		return true
	}
	if !d.ts && c.has("...") {
		c.emit(chroma.Punctuation, c.pos+3)
		return true
	}
	if !d.ts && c.has("=>") {
		c.emit(chroma.Punctuation, c.pos+2)
		return true
	}
	if n := jsOperator(c.src[c.pos:]); n > 0 {
		c.emit(chroma.Operator, c.pos+n)
		c.push(jsRegexStart)
		return true
	}
	switch b {
	case '{', '(', '[', ';', ',':
		c.emit(chroma.Punctuation, c.pos+1)
		c.push(jsRegexStart)
		return true
	case '}', ')', ']', '.':
		c.emit(chroma.Punctuation, c.pos+1)
		return true
	case '"', '\'':
		return d.quoted(c)
	case '`':
		c.emit(chroma.LiteralStringBacktick, c.pos+1)
		c.push(jsInterp)
		return true
	}
	if d.ts {
		return d.tsWord(c)
	}
	return d.jsWord(c)
}

func isSpaceAt(src string, i int) bool {
	r, n := runeAt(src, i)
	return n > 0 && isSpace(r)
}

// commentOrSpace is the commentsandwhitespace state.
func (d *jsDialect) commentOrSpace(c *cursor) bool {
	switch {
	case isSpaceAt(c.src, c.pos):
		c.emit(chroma.Text, spaceEnd(c.src, c.pos, true))
	case c.has("<!--"):
		c.emit(chroma.Comment, c.pos+4)
		if d.ts {
			c.push(jsComment)
		}
	case c.has("//"):
		if end := lineEnd(c.src, c.pos); end < len(c.src) {
			c.emit(chroma.CommentSingle, end+1)
		} else {
			return false // //.*?\n needs the newline
		}
	case c.has("/*"):
		i := strings.Index(c.src[c.pos+2:], "*/")
		if i < 0 {
			return false
		}
		c.emit(chroma.CommentMultiline, c.pos+2+i+2)
	default:
		return false
	}
	return true
}

// jsOperator is the length of the operator rule's match at s, 0 if none:
// \+\+|--|~|&&|\?|:|\|\||\\(?=\n)|(<<|>>>?|==?|!=?|[-<>+*%&|^/])=?
func jsOperator(s string) int {
	if len(s) == 0 {
		return 0
	}
	two := s[:min(2, len(s))]
	switch {
	case two == "++" || two == "--" || two == "&&" || two == "||":
		return 2
	case s[0] == '~' || s[0] == '?' || s[0] == ':':
		return 1
	case s[0] == '\\':
		if len(s) > 1 && s[1] == '\n' {
			return 1
		}
		return 0
	}
	n := 0
	switch {
	case strings.HasPrefix(s, ">>>"):
		n = 3
	case two == "<<" || two == ">>" || two == "==" || two == "!=":
		n = 2
	case strings.IndexByte("-<>+*%&|^/=!", s[0]) >= 0:
		n = 1
	default:
		return 0
	}
	if n < len(s) && s[n] == '=' {
		n++
	}
	return n
}

// quoted lexes "(\\\\|\\"|[^"])*" or its single-quoted twin (quotedEnd).
func (d *jsDialect) quoted(c *cursor) bool {
	typ := chroma.LiteralStringDouble
	if c.src[c.pos] == '\'' {
		typ = chroma.LiteralStringSingle
	}
	end := quotedEnd(c.src, c.pos)
	if end == 0 {
		return false
	}
	c.emit(typ, end)
	return true
}

// interp is the inside of a template string.
func (d *jsDialect) interp(c *cursor) bool {
	switch {
	case c.src[c.pos] == '`':
		c.emit(chroma.LiteralStringBacktick, c.pos+1)
		c.pop()
	case c.has("\\\\") || c.has("\\`"):
		c.emit(chroma.LiteralStringBacktick, c.pos+2)
	case c.src[c.pos] == '\\':
		if d.ts || c.pos+1 >= len(c.src) {
			return false // TypeScript has no rule for other escapes
		}
		_, n := runeAt(c.src, c.pos+1)
		c.emit(chroma.LiteralStringBacktick, c.pos+1+n)
	case c.has("${"):
		c.emit(chroma.LiteralStringInterpol, c.pos+2)
		c.push(jsInterpInside)
	case c.src[c.pos] == '$':
		c.emit(chroma.LiteralStringBacktick, c.pos+1)
	default:
		end := len(c.src)
		if i := strings.IndexAny(c.src[c.pos:], "`\\$"); i >= 0 {
			end = c.pos + i
		}
		c.emit(chroma.LiteralStringBacktick, end)
	}
	return true
}

// regexStart is slashstartsregex: after an operator, an opening bracket or
// a keyword, a '/' starts a regular expression.
func (d *jsDialect) regexStart(c *cursor) bool {
	if d.commentOrSpace(c) {
		return true
	}
	if c.src[c.pos] != '/' {
		c.pop()
		return true
	}
	if end := jsRegex(c.src, c.pos, d.flags); end > 0 {
		c.emit(chroma.LiteralStringRegex, end)
		c.pop()
		return true
	}
	if !d.ts {
		c.pop() // JavaScript: #pop, then badregex
	}
	c.push(jsBadRegex)
	return true
}

// jsRegex is the end of /(\\.|[^[/\\\n]|\[(\\.|[^\]\\\n])*])+/([flags]+\b|\B)
// at i, 0 when it does not match.
func jsRegex(src string, i int, flags string) int {
	j := i + 1
	for j < len(src) {
		switch b := src[j]; {
		case b == '\\':
			if j+1 >= len(src) {
				return 0
			}
			_, n := runeAt(src, j+1)
			j += 1 + n
			continue
		case b == '[':
			k := j + 1
			for k < len(src) && src[k] != ']' && src[k] != '\n' {
				if src[k] == '\\' {
					if k+1 >= len(src) {
						return 0
					}
					_, n := runeAt(src, k+1)
					k += n
				}
				k++
			}
			if k >= len(src) || src[k] != ']' {
				return 0
			}
			j = k + 1
			continue
		case b == '/' || b == '\n':
		default:
			j++
			continue
		}
		break
	}
	if j == i+1 || j >= len(src) || src[j] != '/' {
		return 0
	}
	j++
	k := j
	for k < len(src) && strings.IndexByte(flags, src[k]) >= 0 {
		k++
	}
	if k > j && wordBoundaryAt(src, k) {
		return k
	}
	if r, n := runeAt(src, j); n == 0 || !isWord(r) {
		return j // \B: '/' and what follows are both not word characters
	}
	return 0
}

// jsWord lexes javascript.xml's word rules, its names and numbers' tail.
func (d *jsDialect) jsWord(c *cursor) bool {
	if end := wordEnd(c.src, c.pos); end > c.pos {
		if t, ok := d.words.lookup(c.src[c.pos:end]); ok {
			c.emit(t, end)
			if t == chroma.Keyword || t == chroma.KeywordDeclaration {
				c.push(jsRegexStart)
			}
			return true
		}
	}
	// (?:[$_\p{L}\p{N}]|\\u[a-fA-F0-9]{4})(?:(?:[$\p{L}\p{N}]|\\u[a-fA-F0-9]{4}))*
	i := c.pos
	for first := true; i < len(c.src); first = false {
		if c.src[i] == '\\' && i+5 < len(c.src) && c.src[i+1] == 'u' && isHex(c.src[i+2]) && isHex(c.src[i+3]) && isHex(c.src[i+4]) && isHex(c.src[i+5]) {
			i += 6
			continue
		}
		r, n := runeAt(c.src, i)
		if !(r == '$' || first && r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)) {
			break
		}
		i += n
	}
	if i == c.pos {
		return false
	}
	c.emit(chroma.NameOther, i)
	return true
}

// jsNumber lexes javascript.xml's numbers.
func (d *jsDialect) jsNumber(c *cursor) bool {
	s, p := c.src, c.pos
	if !isDigit(s[p]) {
		return false
	}
	a := p
	for a < len(s) && isDigit(s[a]) {
		a++
	}
	switch {
	case a < len(s) && s[a] == '.':
		a++
		for a < len(s) && isDigit(s[a]) {
			a++
		}
		c.emit(chroma.LiteralNumberFloat, a)
		return true
	case a < len(s) && s[a]|0x20 == 'e':
		if e := digitsAfterSign(s, a+1); e > 0 {
			c.emit(chroma.LiteralNumberFloat, e)
			return true
		}
	}
	if s[p] == '0' && p+2 < len(s) {
		var t chroma.TokenType
		var ok func(byte) bool
		switch s[p+1] | 0x20 {
		case 'b':
			t, ok = chroma.LiteralNumberBin, func(b byte) bool { return b == '0' || b == '1' }
		case 'o':
			t, ok = chroma.LiteralNumberOct, func(b byte) bool { return '0' <= b && b <= '7' }
		case 'x':
			t, ok = chroma.LiteralNumberHex, isHex
		}
		if ok != nil && ok(s[p+2]) {
			e := p + 2
			for e < len(s) && ok(s[e]) {
				e++
			}
			c.emit(t, e)
			return true
		}
	}
	e := p + 1
	for e < len(s) && (isDigit(s[e]) || s[e] == '_') {
		e++
	}
	c.emit(chroma.LiteralNumberInteger, e)
	return true
}

// digitsAfterSign is the end of [+\-]?\d+ at i, 0 when there is none.
func digitsAfterSign(s string, i int) int {
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j == i {
		return 0
	}
	return j
}

// wordRuneBefore reports whether the rune before i is a \w character (so
// \b does not hold at i before a word).
func wordRuneBefore(src string, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(src[:i])
	return isWord(r)
}
