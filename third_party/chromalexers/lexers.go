// Package chromalexers resolves chroma lexers on first use, for the
// languages models write most, from lexer definitions copied from chroma
// v2.27.0 (MIT, see COPYING and PATCHES.md).
//
// Why not chroma's own lexers package: Go runs the init of every linked
// package at start-up, and that one registers all of its ~300 lexers in
// init (about 6 ms on this project's machines). Here nothing happens until
// the first fenced block asks for a language.
package chromalexers

import (
	"embed"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed embedded/*.xml
var embedded embed.FS

// registry holds our lexers (XML ones delegate to each other through it,
// e.g. a Dockerfile's RUN lines to Bash); it is built on the first Get.
var registry = sync.OnceValue(build)

func build() *chroma.LexerRegistry {
	reg := chroma.NewLexerRegistry()
	reg.Register(goLexer())
	entries, _ := embedded.ReadDir("embedded")
	for _, e := range entries {
		l, err := chroma.NewXMLLexer(embedded, "embedded/"+e.Name())
		if err != nil {
			continue // a definition this chroma cannot read: that language stays plain
		}
		reg.Register(l)
	}
	return reg
}

// Get returns the lexer for a fence's info string ("go", "py", "sh",
// "tsx" …), or nil when the language is not one of ours.
func Get(lang string) chroma.Lexer {
	lang = Normalize(lang)
	if lang == "" {
		return nil
	}
	if l := registry().Get(lang); l != nil {
		return chroma.Coalesce(l)
	}
	return nil
}

// Normalize is the language name of a fence's info string: lower case,
// without attributes ("Go {linenos=true}" is "go").
func Normalize(lang string) string {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if i := strings.IndexAny(lang, " {,"); i >= 0 {
		lang = lang[:i]
	}
	return lang
}
