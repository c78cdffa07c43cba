package mdterm

import (
	"go/scanner"
	"go/token"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
)

// goTokens tokenises Go with the standard library's go/scanner and gives
// each token the type chroma's Go lexer (chroma/v2/lexers, go.go) gives
// it (a raw string is one string token), coalesced as chroma.Coalesce does, so a Go fence is coloured
// as chroma colours it. Why not chroma's lexer: its regexp rules cost
// about 75 µs a line (a 2,000-line block took 150 ms of CPU); go/scanner
// takes about 1 µs and is exact where chroma's patterns are approximations
// (0o17, 0x1p-4, 1e3i, an unterminated /* while a block streams in).
// TestGoTokensMatchChroma holds the two to the same tokens over GOROOT,
// against chroma's lexers package as released.
//
// ok is false when the scanner's tokens do not tile src; the block is
// then drawn plain.
func goTokens(src string) (toks []chroma.Token, ok bool) {
	// chroma's Tokenise turns every \r into \n (EnsureLF); so do we.
	src = strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
	raw, ok := scanGo(src)
	if !ok {
		return nil, false
	}
	spans := make([]tokSpan, 0, 2*len(raw)+1)
	prev := 0
	for i, t := range raw {
		if t.off > prev {
			spans = appendSpan(spans, chroma.TextWhitespace, prev, t.off)
		}
		spans = appendSpan(spans, goType(src, raw, i), t.off, t.end)
		prev = t.end
	}
	if prev < len(src) {
		spans = appendSpan(spans, chroma.TextWhitespace, prev, len(src))
	}
	toks = make([]chroma.Token, len(spans))
	for i, sp := range spans {
		toks[i] = chroma.Token{Type: sp.typ, Value: src[sp.start:sp.end]}
	}
	return toks, true
}

// tokSpan is a token of type typ over src[start:end].
type tokSpan struct {
	typ        chroma.TokenType
	start, end int
}

// appendSpan appends a tokSpan, merged into the last one when both have the
// same type (what chroma.Coalesce does); spans are contiguous.
func appendSpan(spans []tokSpan, typ chroma.TokenType, start, end int) []tokSpan {
	if n := len(spans); n > 0 && spans[n-1].typ == typ {
		spans[n-1].end = end
		return spans
	}
	return append(spans, tokSpan{typ: typ, start: start, end: end})
}

// goTok is one scanned token: src[off:end].
type goTok struct {
	off, end int
	tok      token.Token
}

// scanGo scans src into tokens that tile it with whitespace between them
// (automatic semicolons left out); false when they do not.
func scanGo(src string) ([]goTok, bool) {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), func(token.Position, string) {}, scanner.ScanComments)
	out := make([]goTok, 0, len(src)/4+1) // a token per four bytes or so
	prev := 0
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out, true
		}
		if tok == token.SEMICOLON && lit != ";" {
			continue // inserted at a newline or at the end, not in the text
		}
		off := file.Offset(pos)
		end := tokenEnd(src, off, tok, lit)
		if off < prev || end <= off || end > len(src) || strings.TrimLeft(src[prev:off], " \t\n") != "" {
			return nil, false
		}
		out = append(out, goTok{off: off, end: end, tok: tok})
		prev = end
	}
}

// tokenEnd is where the token at off ends. The scanner's literal is the
// source text except for comments and raw strings (carriage returns are
// stripped from those) and for operators and illegal bytes.
func tokenEnd(src string, off int, tok token.Token, lit string) int {
	rest := src[off:]
	switch {
	case tok == token.COMMENT && strings.HasPrefix(rest, "//"):
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			return off + i
		}
		return len(src)
	case tok == token.COMMENT:
		if i := strings.Index(rest[2:], "*/"); i >= 0 {
			return off + 2 + i + 2
		}
		return len(src)
	case tok == token.STRING && strings.HasPrefix(rest, "`"):
		if i := strings.IndexByte(rest[1:], '`'); i >= 0 {
			return off + 1 + i + 1
		}
		return len(src)
	case tok == token.ILLEGAL:
		_, n := utf8.DecodeRuneInString(rest)
		return off + max(n, 1)
	case tok.IsOperator():
		return off + len(tok.String())
	}
	return off + len(lit)
}

// isChromaOperator reports whether chroma's Go lexer calls op an
// Operator; the rest (=, |, ^, <, !, brackets, ^= as '^' '=' …) are
// Punctuation there. (A switch, not a map: no work at start-up.)
func isChromaOperator(op string) bool {
	switch op {
	case "<<=", ">>=", "<<", ">>", "<=", ">=", "&^=", "&^", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "&&",
		"||", "<-", "++", "--", "==", "!=", ":=", "...", "+", "-", "*", "/", "%", "&":
		return true
	}
	return false
}

// goType is the chroma token type of raw[i], as chroma's Go lexer types it.
func goType(src string, raw []goTok, i int) chroma.TokenType {
	t := raw[i]
	text := src[t.off:t.end]
	switch {
	case t.tok == token.COMMENT:
		return commentType(text)
	case t.tok == token.IDENT:
		return identType(src, raw, i)
	case t.tok == token.IMPORT, t.tok == token.PACKAGE:
		return chroma.KeywordNamespace
	case t.tok == token.VAR, t.tok == token.FUNC, t.tok == token.STRUCT, t.tok == token.MAP,
		t.tok == token.CHAN, t.tok == token.TYPE, t.tok == token.INTERFACE, t.tok == token.CONST:
		return chroma.KeywordDeclaration
	case t.tok.IsKeyword():
		return chroma.Keyword
	case t.tok == token.INT:
		return chroma.LiteralNumberInteger
	case t.tok == token.FLOAT:
		return chroma.LiteralNumberFloat
	case t.tok == token.IMAG:
		return chroma.LiteralNumber
	case t.tok == token.CHAR:
		return chroma.LiteralStringChar
	case t.tok == token.STRING:
		return chroma.LiteralString
	case t.tok.IsOperator() && isChromaOperator(text):
		return chroma.Operator
	case t.tok.IsOperator():
		return chroma.Punctuation
	}
	return chroma.Error // ILLEGAL: chroma's lexer matches no rule there either
}

func commentType(text string) chroma.TokenType {
	if strings.HasPrefix(text, "/*") {
		return chroma.CommentMultiline
	}
	// `//[^\s\n\r]` is chroma's directive rule (//go:build, //nolint).
	if r, _ := utf8.DecodeRuneInString(text[2:]); len(text) > 2 && !unicode.IsSpace(r) {
		return chroma.CommentPreproc
	}
	return chroma.CommentSingle
}

// isGoType reports whether chroma's Go lexer types name as KeywordType;
// isGoCallBuiltin whether it is NameBuiltin when a '(' follows at once.
func isGoType(name string) bool {
	switch name {
	case "uint", "uint8", "uint16", "uint32", "uint64", "int", "int8", "int16", "int32", "int64", "float",
		"float32", "float64", "complex64", "complex128", "byte", "rune", "string", "bool", "error", "uintptr", "any":
		return true
	}
	return false
}

func isGoCallBuiltin(name string) bool {
	switch name {
	case "any":
		return false
	case "print", "println", "panic", "recover", "close", "complex", "real", "imag", "len", "cap", "append",
		"copy", "delete", "new", "make", "clear", "min", "max":
		return true
	}
	return isGoType(name)
}

// identType follows the order of chroma's Go rules: constants, builtins
// called at once, type names, then `name\s*(` is a function.
func identType(src string, raw []goTok, i int) chroma.TokenType {
	t := raw[i]
	name := src[t.off:t.end]
	next := token.ILLEGAL
	if i+1 < len(raw) {
		next = raw[i+1].tok
	}
	switch {
	case name == "true" || name == "false" || name == "iota" || name == "nil":
		return chroma.KeywordConstant
	case isGoCallBuiltin(name) && next == token.LPAREN && raw[i+1].off == t.end:
		return chroma.NameBuiltin
	case isGoType(name):
		return chroma.KeywordType
	case next == token.LPAREN && isASCIIStart(name[0]):
		return chroma.NameFunction // the gap to '(' is whitespace: scanGo checked
	}
	return chroma.NameOther
}

func isASCIIStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
