package chromalexers

import (
	"testing"

	"github.com/alecthomas/chroma/v2"
)

func TestEveryEmbeddedLexerLoadsAndTokenises(t *testing.T) {
	t.Parallel()
	samples := map[string]string{"go": "package main\nfunc main() { x := `raw`; _ = x }\n", "python": "def f(x):\n    return x + 1\n",
		"sh": "for f in *; do echo \"$f\"; done\n", "ts": "const x: number = 1;\n", "rust": "fn main() { let x = 1; }\n",
		"json": `{"a": [1, true]}`, "yaml": "a: 1\n", "toml": "a = 1\n", "diff": "-a\n+b\n", "c": "int main(void) { return 0; }\n",
		"c++": "int main() {}\n", "java": "class A {}\n", "sql": "SELECT 1;\n", "makefile": "all:\n\techo hi\n"}
	for lang, src := range samples {
		l := Get(lang)
		if l == nil {
			t.Errorf("no lexer for %q", lang)
			continue
		}
		it, err := l.Tokenise(nil, src)
		if err != nil {
			t.Errorf("%s: %v", lang, err)
			continue
		}
		kinds := map[chroma.TokenType]bool{}
		for tok := it(); tok != chroma.EOF; tok = it() {
			kinds[tok.Type] = true
		}
		if len(kinds) < 2 {
			t.Errorf("%s: one token kind only: %v", lang, kinds)
		}
	}
	if Get("no-such-language") != nil || Get("") != nil {
		t.Error("an unknown language has a lexer")
	}
}
