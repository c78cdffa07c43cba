package mdterm

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// pyWords are the word rules of chroma's Python lexer (python.xml), in its
// order: the statement keywords of root, the operator words and
// expression keywords of expr, then builtins (not after a '.'), magic
// functions and magic variables (without that condition).
var pyWords = words{groups: []wordGroup{
	{chroma.Keyword, "nonlocal|continue|finally|except|lambda|assert|global|return|raise|yield|while|break|await|async|pass|else|elif|with|try|for|del|as|if|match|case"},
	{chroma.KeywordConstant, "False|True|None"},
	{chroma.OperatorWord, "in|is|and|or|not"},
}}

var pyBuiltins = words{groups: []wordGroup{
	{chroma.NameBuiltin, "staticmethod|classmethod|memoryview|__import__|issubclass|isinstance|frozenset|bytearray|enumerate|reversed|property|compile|complex|delattr|hasattr|setattr|globals|getattr|divmod|filter|locals|format|object|sorted|slice|print|bytes|range|input|tuple|round|super|float|eval|list|dict|repr|type|vars|hash|next|bool|open|iter|oct|pow|min|zip|max|map|bin|len|set|any|dir|all|abs|str|sum|chr|int|hex|ord|id"},
	{chroma.NameBuiltinPseudo, "self|Ellipsis|NotImplemented|cls"},
	{chroma.NameException, "PendingDeprecationWarning|ConnectionAbortedError|ConnectionRefusedError|UnicodeTranslateError|ConnectionResetError|ModuleNotFoundError|NotImplementedError|FloatingPointError|StopAsyncIteration|UnicodeDecodeError|DeprecationWarning|UnicodeEncodeError|NotADirectoryError|ProcessLookupError|ZeroDivisionError|IsADirectoryError|FileNotFoundError|UnboundLocalError|KeyboardInterrupt|ChildProcessError|EnvironmentError|IndentationError|InterruptedError|BlockingIOError|ArithmeticError|ConnectionError|BrokenPipeError|FileExistsError|ResourceWarning|PermissionError|RuntimeWarning|ReferenceError|AttributeError|AssertionError|UnicodeWarning|RecursionError|StopIteration|BaseException|OverflowError|SyntaxWarning|FutureWarning|GeneratorExit|ImportWarning|UnicodeError|TimeoutError|WindowsError|RuntimeError|BytesWarning|SystemError|UserWarning|MemoryError|ImportError|LookupError|BufferError|SyntaxError|SystemExit|ValueError|IndexError|NameError|Exception|TypeError|TabError|EOFError|KeyError|VMSError|Warning|OSError|IOError"},
}}

var pyMagic = words{groups: []wordGroup{
	{chroma.NameFunctionMagic, "__instancecheck__|__subclasscheck__|__getattribute__|__length_hint__|__rfloordiv__|__ifloordiv__|__itruediv__|__contains__|__floordiv__|__rtruediv__|__reversed__|__setitem__|__complex__|__rdivmod__|__delattr__|__rmatmul__|__ilshift__|__prepare__|__delitem__|__rrshift__|__imatmul__|__rlshift__|__setattr__|__truediv__|__getitem__|__missing__|__getattr__|__irshift__|__rshift__|__format__|__invert__|__matmul__|__divmod__|__delete__|__aenter__|__lshift__|__await__|__bytes__|__anext__|__aiter__|__aexit__|__round__|__float__|__enter__|__index__|__iadd__|__ipow__|__rpow__|__iter__|__init__|__ixor__|__rmul__|__rmod__|__imul__|__imod__|__iand__|__hash__|__rsub__|__exit__|__rxor__|__bool__|__call__|__rand__|__next__|__radd__|__isub__|__repr__|__set__|__add__|__new__|__neg__|__xor__|__and__|__mul__|__mod__|__sub__|__len__|__str__|__ror__|__ior__|__pos__|__del__|__get__|__dir__|__abs__|__int__|__pow__|__eq__|__gt__|__le__|__lt__|__ne__|__or__|__ge__"},
	{chroma.NameVariableMagic, "__annotations__|__kwdefaults__|__qualname__|__objclass__|__defaults__|__closure__|__globals__|__weakref__|__module__|__class__|__bases__|__slots__|__file__|__code__|__name__|__func__|__dict__|__self__|__mro__|__doc__"},
}}

// pythonTokens tokenises Python as chroma's Python lexer does. (Its
// docstring rule never matches: regexp2 reads `{,2}` as literal text, so
// docstrings are plain strings there and here.)
func pythonTokens(src string) []chroma.Token {
	c := newCursor(ensureLF(src))
	for c.pos < len(c.src) {
		c.reset = false
		c.pyRoot()
	}
	return c.tokens()
}

// pyRoot lexes one token of the root state.
func (c *cursor) pyRoot() {
	switch b := c.src[c.pos]; {
	case b == '\n':
		c.emit(chroma.Text, c.pos+1)
	case b == '#' && c.pos == 0 && c.at(1) == '!' && c.at(2) != '\n' && c.at(2) != 0:
		c.emit(chroma.CommentHashbang, lineEnd(c.src, c.pos))
	case b == '#':
		c.emit(chroma.CommentSingle, lineEnd(c.src, c.pos))
	case b == '\\' && c.at(1) == '\n':
		c.emit(chroma.Text, c.pos+2)
	case b == '\\':
		c.emit(chroma.Text, c.pos+1)
	default:
		if !c.pyStatement() && !c.pyExpr() {
			c.errorRune()
		}
	}
}

// pyStatement lexes the root state's keyword rules: keywords, then def,
// class, from and import, each followed by space and the state it pushes.
func (c *cursor) pyStatement() bool {
	end := identEnd(c.src, c.pos)
	if end == c.pos {
		return false
	}
	word := c.src[c.pos:end]
	if word == "yield" && c.src[end:min(end+5, len(c.src))] == " from" && wordBoundaryAt(c.src, end+5) {
		c.emit(chroma.Keyword, end+5)
		return true
	}
	if t, ok := pyWords.lookup(word); ok && t != chroma.OperatorWord && wordBoundaryAt(c.src, end) {
		c.emit(t, end)
		return true
	}
	var next func()
	typ := chroma.Keyword
	switch word {
	case "def":
		next = c.pyFuncName
	case "class":
		next = c.pyClassName
	case "from":
		typ, next = chroma.KeywordNamespace, c.pyFromImport
	case "import":
		typ, next = chroma.KeywordNamespace, c.pyImport
	default:
		return false
	}
	space := pyKeywordSpace(c.src, end)
	if space == end {
		return false
	}
	c.emit(typ, end)
	c.emit(chroma.Text, space)
	next()
	return true
}

// pyKeywordSpace is the end of (?:\s|\\\s)+ from i.
func pyKeywordSpace(src string, i int) int {
	for {
		if j := spaceEnd(src, i, true); j > i {
			i = j
			continue
		}
		if i+1 < len(src) && src[i] == '\\' {
			if r, n := runeAt(src, i+1); isSpace(r) {
				i += 1 + n
				continue
			}
		}
		return i
	}
}

func (c *cursor) pyFuncName() {
	for c.pos < len(c.src) {
		end := identEnd(c.src, c.pos)
		if end == c.pos {
			return
		}
		if t, ok := pyMagic.lookup(c.src[c.pos:end]); ok && t == chroma.NameFunctionMagic && wordBoundaryAt(c.src, end) {
			c.emit(t, end)
			continue
		}
		c.emit(chroma.NameFunction, end)
		return
	}
}

// pyClassName has no rule but the name: anything else is an Error, and a
// newline goes back to root.
func (c *cursor) pyClassName() {
	for c.pos < len(c.src) && c.src[c.pos] != '\n' {
		if end := identEnd(c.src, c.pos); end > c.pos {
			c.emit(chroma.NameClass, end)
			return
		}
		c.errorRune()
	}
}

func (c *cursor) pyFromImport() {
	for c.pos < len(c.src) {
		if sp := spaceEnd(c.src, c.pos, true); sp > c.pos && c.src[sp:min(sp+6, len(c.src))] == "import" && wordBoundaryAt(c.src, sp+6) {
			c.emit(chroma.Text, sp)
			c.emit(chroma.KeywordNamespace, sp+6)
			return
		}
		if c.src[c.pos] == '.' {
			c.emit(chroma.NameNamespace, c.pos+1)
			continue
		}
		end := identEnd(c.src, c.pos)
		switch {
		case end == c.pos:
			return
		case c.src[c.pos:end] == "None" && wordBoundaryAt(c.src, end):
			c.emit(chroma.NameBuiltinPseudo, end)
			return
		}
		c.emit(chroma.NameNamespace, end)
	}
}

func (c *cursor) pyImport() {
	for c.pos < len(c.src) {
		sp := spaceEnd(c.src, c.pos, true)
		if sp > c.pos && c.src[sp:min(sp+2, len(c.src))] == "as" {
			if after := spaceEnd(c.src, sp+2, true); after > sp+2 {
				c.emit(chroma.Text, sp)
				c.emit(chroma.Keyword, sp+2)
				c.emit(chroma.Text, after)
				continue
			}
		}
		if c.src[c.pos] == '.' {
			c.emit(chroma.NameNamespace, c.pos+1)
			continue
		}
		if end := identEnd(c.src, c.pos); end > c.pos {
			c.emit(chroma.NameNamespace, end)
			continue
		}
		if sp < len(c.src) && c.src[sp] == ',' {
			c.emit(chroma.Text, sp)
			c.emit(chroma.Operator, sp+1)
			c.emit(chroma.Text, spaceEnd(c.src, c.pos, true))
			continue
		}
		return
	}
}

// pyExpr lexes one token of the expr state; false when no rule matches.
func (c *cursor) pyExpr() bool {
	b := c.src[c.pos]
	switch {
	case b == '"' || b == '\'':
		c.pyString(c.pos, false, false)
	case isDigit(b) || b == '.' && isDigit(c.at(1)):
		c.pyNumber()
	case b == '!' || b == '=' || b == '<' || b == '>' || b == ':':
		if two := c.src[c.pos:min(c.pos+2, len(c.src))]; two == "!=" || two == "==" || two == "<<" || two == ">>" || two == ":=" {
			c.emit(chroma.Operator, c.pos+2)
		} else if b == ':' {
			c.emit(chroma.Punctuation, c.pos+1)
		} else if b == '!' {
			return false
		} else {
			c.emit(chroma.Operator, c.pos+1)
		}
	case b == '-' || b == '~' || b == '+' || b == '/' || b == '*' || b == '%' || b == '&' || b == '^' || b == '|' || b == '.':
		c.emit(chroma.Operator, c.pos+1)
	case b == '[' || b == ']' || b == '{' || b == '}' || b == '(' || b == ')' || b == ',' || b == ';':
		c.emit(chroma.Punctuation, c.pos+1)
	case b == '@':
		c.pyDecorator()
	default:
		if sp := spaceEnd(c.src, c.pos, false); sp > c.pos {
			c.emit(chroma.Text, sp)
			return true
		}
		return c.pyName()
	}
	return true
}

// pyName lexes an identifier: a string's prefix, an operator word, an
// expression keyword, a builtin, a magic name or a plain name.
func (c *cursor) pyName() bool {
	end := identEnd(c.src, c.pos)
	if end == c.pos {
		return false
	}
	word := c.src[c.pos:end]
	if q := c.at(end - c.pos); (q == '"' || q == '\'') && len(word) <= 2 {
		if raw, fmt, ok := pyPrefix(word); ok {
			c.pyString(end, raw, fmt)
			return true
		}
	}
	for _, kw := range [...]string{"yield from", "async for"} {
		if strings.HasPrefix(c.src[c.pos:], kw) && wordBoundaryAt(c.src, c.pos+len(kw)) {
			c.emit(chroma.Keyword, c.pos+len(kw))
			return true
		}
	}
	boundary := wordBoundaryAt(c.src, end)
	if t, ok := pyWords.lookup(word); ok && boundary && (t != chroma.Keyword || pyExprKeyword(word)) {
		c.emit(t, end)
		return true
	}
	if boundary {
		if t, ok := pyBuiltins.lookup(word); ok && (c.pos == 0 || c.src[c.pos-1] != '.') {
			c.emit(t, end)
			return true
		}
		if t, ok := pyMagic.lookup(word); ok {
			c.emit(t, end)
			return true
		}
	}
	c.emit(chroma.Name, end)
	return true
}

// pyExprKeyword reports whether expr-keywords lists word.
func pyExprKeyword(word string) bool {
	switch word {
	case "lambda", "yield", "await", "else", "for", "if":
		return true
	}
	return false
}

// pyPrefix reads a string prefix: raw (no escapes but \\ and the quote),
// f (interpolated), ok false when word is not one.
func pyPrefix(word string) (raw, f, ok bool) {
	lower := []byte(word)
	for i, b := range lower {
		lower[i] = b | 0x20
	}
	switch string(lower) {
	case "rf", "fr":
		return true, true, true
	case "f":
		return false, true, true
	case "rb", "br", "r":
		return true, false, true
	case "u", "b":
		return false, false, true
	}
	return false, false, false
}

func (c *cursor) pyDecorator() {
	end := identEnd(c.src, c.pos+1)
	if end == c.pos+1 {
		c.emit(chroma.Operator, c.pos+1)
		return
	}
	for {
		dot := spaceEnd(c.src, end, true)
		if dot >= len(c.src) || c.src[dot] != '.' {
			break
		}
		name := spaceEnd(c.src, dot+1, true)
		next := identEnd(c.src, name)
		if next == name {
			break
		}
		end = next
	}
	c.emit(chroma.NameDecorator, end)
}
