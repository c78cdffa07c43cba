package mdterm

import (
	"strconv"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/muesli/termenv"
)

// syntaxStyles are the code colours, defined here from the palette rather
// than taken from chroma's styles package (whose init costs about 19 ms).
type syntaxStyles struct {
	keyword, name, fn, typ, str, num, comment, op, plain, added, removed, meta termenv.Style
}

func newSyntax(fg func(string) termenv.Style, dark bool) syntaxStyles {
	if dark {
		return syntaxStyles{keyword: fg("#c678dd"), name: fg("#d8dee9"), fn: fg("#61afef"), typ: fg("#e5c07b"),
			str: fg("#98c379"), num: fg("#d19a66"), comment: fg("#7f848e").Italic(), op: fg("#56b6c2"),
			plain: fg("#d8dee9"), added: fg("#98c379"), removed: fg("#e06c75"), meta: fg("#56b6c2")}
	}
	return syntaxStyles{keyword: fg("#a626a4"), name: fg("#383a42"), fn: fg("#4078f2"), typ: fg("#c18401"),
		str: fg("#50a14f"), num: fg("#986801"), comment: fg("#a0a1a7").Italic(), op: fg("#0184bc"),
		plain: fg("#383a42"), added: fg("#50a14f"), removed: fg("#e45649"), meta: fg("#0184bc")}
}

// colour is a token type's place in the palette; token types of the same
// colour look the same on screen.
type colour int

const (
	colourPlain colour = iota
	colourAdded
	colourRemoved
	colourMeta
	colourType
	colourKeyword
	colourFunction
	colourString
	colourNumber
	colourComment
	colourOperator
	colourName
)

// colourOf picks the colour of a token type by its chroma category.
func colourOf(t chroma.TokenType) colour {
	switch {
	case t == chroma.GenericInserted:
		return colourAdded
	case t == chroma.GenericDeleted:
		return colourRemoved
	case t == chroma.GenericHeading, t == chroma.GenericSubheading:
		return colourMeta
	case t == chroma.KeywordType, t == chroma.NameClass, t == chroma.NameBuiltin:
		return colourType
	case t.InCategory(chroma.Keyword):
		return colourKeyword
	case t == chroma.NameFunction, t == chroma.NameFunctionMagic:
		return colourFunction
	case t.InCategory(chroma.LiteralString):
		return colourString
	case t.InCategory(chroma.LiteralNumber):
		return colourNumber
	case t.InCategory(chroma.Comment):
		return colourComment
	case t.InCategory(chroma.Operator), t.InCategory(chroma.Punctuation):
		return colourOperator
	case t.InCategory(chroma.Name):
		return colourName
	}
	return colourPlain
}

// style is the terminal style of a token type.
func (s *syntaxStyles) style(t chroma.TokenType) termenv.Style {
	return [...]termenv.Style{colourPlain: s.plain, colourAdded: s.added, colourRemoved: s.removed, colourMeta: s.meta,
		colourType: s.typ, colourKeyword: s.keyword, colourFunction: s.fn, colourString: s.str, colourNumber: s.num,
		colourComment: s.comment, colourOperator: s.op, colourName: s.name}[colourOf(t)]
}

// seg is a run of one style on a code line: on + text + off.
type seg struct {
	text, on, off string
}

// sgrOf splits a style into the sequences termenv writes before and after
// a text, so a code block formats each style once, not once per token.
func sgrOf(st termenv.Style) (on, off string) {
	full := st.Styled("\x00")
	i := strings.IndexByte(full, 0)
	return full[:i], full[i+1:]
}

// highlighted draws code lines of width cells: highlighted when the
// language has a lexer (once per block, cached), else in the code colour.
// With a notifier (the TUI), a block chroma lexes is drawn plain and
// coloured off the caller's goroutine, as is a Go block of syncGoLines or
// more; a shorter Go block is highlighted in place (go/scanner is fast).
func (w *walker) highlighted(lang, src string, width int) []string {
	if !w.highlight || !w.st.color {
		return w.plainCode(src, width)
	}
	lex, slow := lexerFor(lang)
	if lex == nil {
		return w.plainCode(src, width)
	}
	key := lang + "\x00" + strconv.Itoa(width) + "\x00" + src
	if lines, ok := w.hl.get(key); ok {
		return lines
	}
	work := func() []string {
		toks, ok := lex(src)
		if !ok {
			return w.plainCode(src, width)
		}
		return w.tokens(toks, width)
	}
	if (slow || strings.Count(src, "\n") >= syncGoLines) && w.hl.notifies() {
		w.hl.later(key, work)
		return w.plainCode(src, width)
	}
	out := work()
	w.hl.put(key, out)
	return out
}

// lexFunc tokenises a code block; false when it cannot.
type lexFunc func(src string) ([]chroma.Token, bool)

// lexerFor is the tokeniser of a fence's language, or nil when there is
// none: Go's own scanner for Go (a block it cannot tile is drawn plain),
// chroma's lexers (slow true) for the rest.
func lexerFor(lang string) (lex lexFunc, slow bool) {
	switch normalizeLang(lang) {
	case "go", "golang":
		return goTokens, false
	}
	lexer := chromaLexer(lang)
	if lexer == nil {
		return nil, false
	}
	return func(src string) ([]chroma.Token, bool) { return chromaTokens(lexer, src) }, true
}

func chromaTokens(lexer chroma.Lexer, src string) ([]chroma.Token, bool) {
	it, err := lexer.Tokenise(nil, src)
	if err != nil {
		return nil, false
	}
	return it.Tokens(), true
}

// tokens draws highlighted tokens as rows of width cells.
func (w *walker) tokens(toks []chroma.Token, width int) []string {
	var out []string
	var line []seg
	sgr := map[chroma.TokenType][2]string{}
	for _, tok := range toks {
		wrap, ok := sgr[tok.Type]
		if !ok {
			wrap[0], wrap[1] = sgrOf(w.st.syntax.style(tok.Type))
			sgr[tok.Type] = wrap
		}
		for text := tok.Value; ; {
			part, rest, more := strings.Cut(text, "\n")
			if part != "" {
				line = append(line, seg{text: part, on: wrap[0], off: wrap[1]})
			}
			if !more {
				break
			}
			out = append(out, wrapSegs(line, width)...)
			line = line[:0]
			text = rest
		}
	}
	if len(line) > 0 {
		out = append(out, wrapSegs(line, width)...)
	}
	return out
}

// plainCode draws code in the code colour, hard-wrapped.
func (w *walker) plainCode(src string, width int) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		for _, part := range hardWrap(l, width) {
			out = append(out, w.st.apply(w.st.fence, part))
		}
	}
	return out
}

// wrapSegs breaks one styled code line into rows of at most width cells,
// keeping its spacing.
func wrapSegs(segs []seg, width int) []string {
	var rows []string
	var b strings.Builder
	used := 0
	for _, s := range segs {
		text := s.text
		for text != "" {
			if used == width {
				rows = append(rows, b.String())
				b.Reset()
				used = 0
			}
			head, tail := cut(text, width-used)
			hw := Width(head)
			if hw > width-used && used > 0 {
				rows = append(rows, b.String())
				b.Reset()
				used = 0
				continue
			}
			b.WriteString(s.on)
			b.WriteString(head)
			b.WriteString(s.off)
			used += hw
			text = tail
		}
	}
	return append(rows, b.String())
}
