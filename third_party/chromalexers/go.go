//lint:file-ignore ST1001 the lexer rules are chroma's own, copied as upstream writes them (dot import of chroma)

package chromalexers

import (
	"strings"

	. "github.com/alecthomas/chroma/v2" //nolint:revive // the rules read as chroma's own
)

// goLexer is chroma's Go lexer (lexers/go.go of v2.27.0), built on first
// use instead of registered in init. Raw strings are one string token
// here; chroma hands them to its Go template lexer.
func goLexer() Lexer {
	return MustNewLexer(&Config{Name: "Go", Aliases: []string{"go", "golang"}, Filenames: []string{"*.go"},
		MimeTypes: []string{"text/x-gosrc"}}, goRules).SetAnalyser(func(text string) float32 {
		if strings.Contains(text, "package ") {
			return 0.1
		}
		return 0
	})
}
func goRules() Rules {
	r := func(pattern string, t Emitter, m Mutator) Rule { return Rule{Pattern: pattern, Type: t, Mutator: m} }
	return Rules{
		"root": {
			r(`\n`, TextWhitespace, nil),
			r(`\s+`, TextWhitespace, nil),
			r(`//[^\s\n\r][^\n\r]*`, CommentPreproc, nil),
			r(`//[^\n\r]*`, CommentSingle, nil),
			r(`/(\\\n)?[*](.|\n)*?[*](\\\n)?/`, CommentMultiline, nil),
			r(`(import|package)\b`, KeywordNamespace, nil),
			r(`(var|func|struct|map|chan|type|interface|const)\b`, KeywordDeclaration, nil),
			r(Words(``, `\b`, `break`, `default`, `select`, `case`, `defer`, `go`, `else`, `goto`, `switch`, `fallthrough`, `if`, `range`, `continue`, `for`, `return`), Keyword, nil),
			r(`(true|false|iota|nil)\b`, KeywordConstant, nil),
			r(Words(``, `\b(\()`, `uint`, `uint8`, `uint16`, `uint32`, `uint64`, `int`, `int8`, `int16`, `int32`, `int64`, `float`, `float32`, `float64`, `complex64`, `complex128`, `byte`, `rune`, `string`, `bool`, `error`, `uintptr`, `print`, `println`, `panic`, `recover`, `close`, `complex`, `real`, `imag`, `len`, `cap`, `append`, `copy`, `delete`, `new`, `make`, `clear`, `min`, `max`), ByGroups(NameBuiltin, Punctuation), nil),
			r(Words(``, `\b`, `uint`, `uint8`, `uint16`, `uint32`, `uint64`, `int`, `int8`, `int16`, `int32`, `int64`, `float`, `float32`, `float64`, `complex64`, `complex128`, `byte`, `rune`, `string`, `bool`, `error`, `uintptr`, `any`), KeywordType, nil),
			r(`\d+i`, LiteralNumber, nil),
			r(`\d+\.\d*([Ee][-+]\d+)?i`, LiteralNumber, nil),
			r(`\.\d+([Ee][-+]\d+)?i`, LiteralNumber, nil),
			r(`\d+[Ee][-+]\d+i`, LiteralNumber, nil),
			r(`\d+(\.\d+[eE][+\-]?\d+|\.\d*|[eE][+\-]?\d+)`, LiteralNumberFloat, nil),
			r(`\.\d+([eE][+\-]?\d+)?`, LiteralNumberFloat, nil),
			r(`0[0-7]+`, LiteralNumberOct, nil),
			r(`0[xX][0-9a-fA-F_]+`, LiteralNumberHex, nil),
			r(`0b[01_]+`, LiteralNumberBin, nil),
			r(`(0|[1-9][0-9_]*)`, LiteralNumberInteger, nil),
			r(`'(\\['"\\abfnrtv]|\\x[0-9a-fA-F]{2}|\\[0-7]{1,3}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|[^\\])'`, LiteralStringChar, nil),
			r("`[^`]*`", LiteralString, nil),
			r(`"(\\\\|\\"|[^"])*"`, LiteralString, nil),
			r(`(<<=|>>=|<<|>>|<=|>=|&\^=|&\^|\+=|-=|\*=|/=|%=|&=|\|=|&&|\|\||<-|\+\+|--|==|!=|:=|\.\.\.|[+\-*/%&])`, Operator, nil),
			r(`([a-zA-Z_]\w*)(\s*)(\()`, ByGroups(NameFunction, UsingSelf("root"), Punctuation), nil),
			r(`[|^<>=!()\[\]{}.,;:~]`, Punctuation, nil),
			r(`[^\W\d]\w*`, NameOther, nil),
		},
	}
}
