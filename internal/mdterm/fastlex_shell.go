package mdterm

import (
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
)

// The states of chroma's Bash lexer (bash.xml).
const (
	shRoot uint8 = iota
	shString
	shParen
	shMath
	shBackticks
	shCurly
)

// shWords are bash.xml's keywords (then optional space before a word) and
// builtins (before white space, ')' or '`'), both after \b.
var shWords = words{groups: []wordGroup{
	{chroma.Keyword, "if|fi|else|while|do|done|for|then|return|function|case|select|continue|until|esac|elif"},
	{chroma.NameBuiltin, "alias|bg|bind|break|builtin|caller|cd|command|compgen|complete|declare|dirs|disown|echo|enable|eval|exec|exit|export|false|fc|fg|getopts|hash|help|history|jobs|kill|let|local|logout|popd|printf|pushd|pwd|read|readonly|set|shift|shopt|source|suspend|test|time|times|trap|true|type|typeset|ulimit|umask|unalias|unset|wait"},
}}

// shellTokens tokenises shell as chroma's Bash lexer does.
func shellTokens(src string) []chroma.Token {
	c := newCursor(ensureLF(src))
	c.run(c.shStep)
	return c.tokens()
}

func (c *cursor) shStep(st uint8) bool {
	b := c.src[c.pos]
	switch st {
	case shString:
		switch {
		case b == '"':
			c.emit(chroma.LiteralStringDouble, c.pos+1)
			c.pop()
			return true
		case b != '$':
			if end := shStringRun(c.src, c.pos); end > c.pos {
				c.emit(chroma.LiteralStringDouble, end)
				return true
			}
		}
		return c.shInterp()
	case shParen:
		if b == ')' {
			c.emit(chroma.Keyword, c.pos+1)
			c.pop()
			return true
		}
	case shMath:
		switch {
		case c.has("))"):
			c.emit(chroma.Keyword, c.pos+2)
			c.pop()
			return true
		case strings.IndexByte("-+*/%^|&", b) >= 0:
			c.emit(chroma.Operator, c.pos+1)
			return true
		case isDigit(b):
			c.emit(chroma.LiteralNumber, shMathNumber(c.src, c.pos))
			return true
		}
	case shBackticks:
		if b == '`' {
			c.emit(chroma.LiteralStringBacktick, c.pos+1)
			c.pop()
			return true
		}
	case shCurly:
		switch {
		case b == '}':
			c.emit(chroma.LiteralStringInterpol, c.pos+1)
			c.pop()
			return true
		case c.has(":-"):
			c.emit(chroma.Keyword, c.pos+2)
			return true
		case wordEnd(c.src, c.pos) > c.pos:
			c.emit(chroma.NameVariable, wordEnd(c.src, c.pos))
			return true
		case strings.IndexByte("}:\"'`$\\", b) < 0:
			end := len(c.src)
			if i := strings.IndexAny(c.src[c.pos:], "}:\"'`$\\"); i >= 0 {
				end = c.pos + i
			}
			c.emit(chroma.Punctuation, end)
			return true
		case b == ':':
			c.emit(chroma.Punctuation, c.pos+1)
			return true
		}
	}
	return c.shRoot()
}

// shStringRun is the end of (\\\\|\\[0-7]+|\\.|[^"\\$])+ at i: to the next
// '"' or '$' not after a backslash (a backslash takes any next rune).
func shStringRun(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case '"', '$':
			return i
		case '\\':
			if i+1 >= len(s) {
				return i // a lone backslash at the end: no rule of string takes it
			}
			_, n := runeAt(s, i+1)
			i += 1 + n
		default:
			i++
		}
	}
	return i
}

// shMathNumber matches \d+#\d+, \d+#(?! ), \d+ at a digit.
func shMathNumber(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '#' {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j > i+1 {
			return j
		}
		if j >= len(s) || s[j] != ' ' {
			return i + 1
		}
	}
	return i
}

// shRoot is the root state: basic, backticks, data, interp.
func (c *cursor) shRoot() bool {
	if c.shBasic() {
		return true
	}
	if c.src[c.pos] == '`' {
		c.emit(chroma.LiteralStringBacktick, c.pos+1)
		c.push(shBackticks)
		return true
	}
	return c.shData() || c.shInterp()
}

// shBasic is the basic state's rules.
func (c *cursor) shBasic() bool {
	s, p := c.src, c.pos
	b := s[p]
	if end := wordEnd(s, p); end > p && !wordRuneBefore(s, p) {
		if t, ok := shWords.lookup(s[p:end]); ok {
			if t == chroma.Keyword {
				c.emit(chroma.Keyword, end)
				if sp := spaceEnd(s, end, true); sp > end && sp < len(s) && wordEnd(s, sp) > sp {
					c.emit(chroma.Text, sp)
				}
				return true
			}
			if end < len(s) && (isSpaceAt(s, end) || s[end] == ')' || s[end] == '`') {
				c.emit(chroma.NameBuiltin, end)
				return true
			}
		}
	}
	switch {
	case p == 0 && c.has("#!") && lineEnd(s, 0) > 2 && lineEnd(s, 0) < len(s):
		c.emit(chroma.CommentPreproc, lineEnd(s, 0)+1)
	case b == '#':
		c.emit(chroma.CommentSingle, lineEnd(s, p))
	case b == '\\' && p+1 < len(s):
		_, n := runeAt(s, p+1)
		c.emit(chroma.LiteralStringEscape, p+1+n)
	case c.shAssign():
	case strings.IndexByte("[]{}()=", b) >= 0:
		c.emit(chroma.Operator, p+1)
	case c.has("<<<"):
		c.emit(chroma.Operator, p+3)
	case c.has("<<") && shHeredoc(s, p) > 0:
		c.emit(chroma.LiteralString, shHeredoc(s, p))
	case c.has("&&") || c.has("||"):
		c.emit(chroma.Operator, p+2)
	default:
		return false
	}
	return true
}

// shAssign matches (\b\w+)(\s*)(\+?=).
func (c *cursor) shAssign() bool {
	s, p := c.src, c.pos
	end := wordEnd(s, p)
	if end == p || wordRuneBefore(s, p) {
		return false
	}
	sp := spaceEnd(s, end, true)
	op := sp
	if op < len(s) && s[op] == '+' {
		op++
	}
	if op >= len(s) || s[op] != '=' {
		return false
	}
	c.emit(chroma.NameVariable, end)
	c.emit(chroma.Text, sp)
	c.emit(chroma.Operator, op+1)
	return true
}

// shHeredoc is the end of <<-?\s*(\'?)\\?(\w+)[\w\W]+?\2 at p, 0 when it
// does not match: the body runs to the first later occurrence of the word
// (or, as the regexp backtracks, of a shorter prefix of it).
func shHeredoc(s string, p int) int {
	i := p + 2
	if i < len(s) && s[i] == '-' {
		i++
	}
	i = spaceEnd(s, i, true)
	if i < len(s) && s[i] == '\'' {
		i++
	}
	if i < len(s) && s[i] == '\\' {
		i++
	}
	for k := wordEnd(s, i); k > i; {
		if _, n := runeAt(s, k); n > 0 {
			if j := strings.Index(s[k+n:], s[i:k]); j >= 0 {
				return k + n + j + (k - i)
			}
		}
		_, n := utf8.DecodeLastRuneInString(s[i:k]) // (\w+) backtracks a rune
		k -= n
	}
	return 0
}

// shData is the data state's rules.
func (c *cursor) shData() bool {
	s, p := c.src, c.pos
	b := s[p]
	switch {
	case (b == '"' || b == '$' && c.at(1) == '"') && shDouble(s, p) > 0:
		c.emit(chroma.LiteralStringDouble, shDouble(s, p))
	case b == '"':
		c.emit(chroma.LiteralStringDouble, p+1)
		c.push(shString)
	case b == '$' && c.at(1) == '\'' && shDollarSingle(s, p) > 0:
		c.emit(chroma.LiteralStringSingle, shDollarSingle(s, p))
	case b == '\'':
		i := strings.IndexByte(s[p+1:], '\'')
		if i < 0 {
			return false
		}
		c.emit(chroma.LiteralStringSingle, p+1+i+1)
	case b == ';' || b == '&' || b == '|':
		c.emit(chroma.Punctuation, p+1)
	case isSpaceAt(s, p):
		c.emit(chroma.Text, spaceEnd(s, p, true))
	case isDigit(b) && shNumber(s, p) > 0:
		c.emit(chroma.LiteralNumber, shNumber(s, p))
	case b == '<':
		c.emit(chroma.Text, p+1)
	default:
		end := p
		for end < len(s) {
			if r, n := runeAt(s, end); !isSpace(r) && !strings.ContainsRune("=[]{}()$\"'`\\<&|;", r) {
				end += n
				continue
			}
			break
		}
		if end == p {
			return false
		}
		c.emit(chroma.Text, end)
	}
	return true
}

// shDouble is the end of \$?"(\\\\|\\[0-7]+|\\.|[^"\\$])*" at p, 0 when none.
func shDouble(s string, p int) int {
	if s[p] == '$' {
		p++
	}
	i := p + 1
	for i < len(s) {
		switch s[i] {
		case '"':
			return i + 1
		case '$':
			return 0
		case '\\':
			if i+1 >= len(s) {
				return 0
			}
			_, n := runeAt(s, i+1)
			i += 1 + n
		default:
			i++
		}
	}
	return 0
}

// shDollarSingle is the end of \$'(\\\\|\\[0-7]+|\\.|[^'\\])*' at p, 0 when none.
func shDollarSingle(s string, p int) int {
	for i := p + 2; i < len(s); i++ {
		switch s[i] {
		case '\'':
			return i + 1
		case '\\':
			if i+1 >= len(s) {
				return 0
			}
			_, n := runeAt(s, i+1)
			i += n
		}
	}
	return 0
}

// shNumber is the end of \d+(?= |$) at p, 0 when none.
func shNumber(s string, p int) int {
	i := p
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == len(s) || s[i] == ' ' || s[i] == '\n' {
		return i
	}
	return 0
}

// shInterp is the interp state's rules, at a '$'.
func (c *cursor) shInterp() bool {
	s, p := c.src, c.pos
	if s[p] != '$' {
		return false
	}
	switch n := c.at(1); {
	case c.has("$(("):
		c.emit(chroma.Keyword, p+3)
		c.push(shMath)
	case n == '(':
		c.emit(chroma.Keyword, p+2)
		c.push(shParen)
	case n == '{':
		end := p + 2
		if c.at(2) == '#' {
			end++
		}
		c.emit(chroma.LiteralStringInterpol, end)
		c.push(shCurly)
	case isASCIIStart(n):
		c.emit(chroma.NameVariable, wordEnd(s, p+1))
	case isDigit(n):
		end := p + 1
		for end < len(s) && isDigit(s[end]) {
			end++
		}
		c.emit(chroma.NameVariable, end)
	case n != 0 && strings.IndexByte("#$?!_*@-", n) >= 0:
		c.emit(chroma.NameVariable, p+2)
	default:
		c.emit(chroma.Text, p+1)
	}
	return true
}
