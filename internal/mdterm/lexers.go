package mdterm

import (
	"io/fs"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"

	"github.com/codewhale/codewhale/third_party/chromalexers"
)

// lexers is the registry of chroma lexers for fences, built on the first
// highlighted block from third_party/chromalexers (chroma's own definitions
// of the languages models write most). Why not chroma's lexers package: Go
// runs every linked package's init at start-up, and that one registers its
// ~280 lexers there, 12–15 ms at every start (docs/PERFORMANCE.md). XML
// lexers delegate to each other through the registry (a Dockerfile's RUN
// lines to Bash). Go is not among them: go/scanner tokenises it
// (gotokens.go).
var lexers = sync.OnceValue(func() *chroma.LexerRegistry {
	reg := chroma.NewLexerRegistry()
	defs := chromalexers.FS()
	names, _ := fs.Glob(defs, "embedded/*.xml")
	for _, name := range names {
		l, err := chroma.NewXMLLexer(defs, name)
		if err != nil {
			continue // a definition this chroma cannot read: that language stays plain
		}
		reg.Register(l)
	}
	return reg
})

// chromaLexer is the lexer for a fence's info string ("go", "py", "sh",
// "tsx" …), or nil when the language is not one of ours.
func chromaLexer(lang string) chroma.Lexer {
	lang = normalizeLang(lang)
	if lang == "" {
		return nil
	}
	if l := lexers().Get(lang); l != nil {
		return chroma.Coalesce(l)
	}
	return nil
}

// normalizeLang is the language name of a fence's info string: lower case,
// without attributes ("Go {linenos=true}" is "go").
func normalizeLang(lang string) string {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if i := strings.IndexAny(lang, " {,"); i >= 0 {
		lang = lang[:i]
	}
	return lang
}
