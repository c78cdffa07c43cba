package mdterm

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/muesli/termenv"
	"github.com/rivo/uniseg"
)

var update = flag.Bool("update", false, "rewrite golden files")

const sample = "# Plan\n\nI'll **fix** the `Add` function in *calc.go* and run the tests; see [docs](https://go.dev) and snake_case_name.\n\n" +
	"## Steps\n\n1. Read the file\n2. Edit it:\n   - keep the signature\n   - change `-` to `+`\n3. Run `go test`\n\n" +
	"> Note: this is a quote that is long enough to wrap across more than one line of the narrow terminal.\n\n" +
	"```go\nfunc Add(a, b int) int {\n\treturn a + b\n}\n```\n\n| file | change |\n|---|---|\n| calc.go | `-` → `+` |\n| 日本語.txt | none |\n\n---\n\n- [x] done\n- [ ] todo ~~old~~\n"

func TestRenderGolden(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		color bool
		width int
	}{{"plain60", false, 60}, {"color100", true, 100}, {"narrow24", false, 24}} {
		got := strings.Join(New(termenv.TrueColor, c.color, true).Render(sample, c.width), "\n") + "\n"
		path := "testdata/" + c.name + ".golden"
		if *update {
			os.MkdirAll("testdata", 0o755)
			os.WriteFile(path, []byte(got), 0o644)
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil || got != string(want) {
			t.Errorf("%s differs (run with -update):\n%s", c.name, got)
		}
		if !c.color {
			for _, l := range strings.Split(got, "\n") {
				if w := Width(stripANSI(l)); w > c.width {
					t.Errorf("%s: line wider than %d: %q", c.name, c.width, l)
				}
			}
		}
	}
}

func TestUnclosedDelimitersStayLiteral(t *testing.T) {
	t.Parallel()
	r := New(termenv.Ascii, false, true)
	for in, want := range map[string]string{
		"2 * 3 = 6":           "2 * 3 = 6",
		"a snake_case_name":   "a snake_case_name",
		"unclosed **bold":     "unclosed **bold",
		"stream `partial cod": "stream `partial cod",
		"```go\nfunc x() {":   "  func x() {",
	} {
		got := stripANSI(strings.Join(r.Render(in, 80), "\n"))
		if !strings.Contains(got, want) {
			t.Errorf("%q rendered %q", in, got)
		}
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func BenchmarkRender(b *testing.B) {
	r := New(termenv.TrueColor, true, true)
	doc := strings.Repeat(sample, 10)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		r.Render(doc, 100)
	}
}

// A flag is two cells wide and is never split at the wrap edge (issue 14:
// 🇯🇵 counted as one cell and was lost there).
func TestWidthsAreByGraphemeCluster(t *testing.T) {
	t.Parallel()
	if w := Width("🇯🇵"); w != 2 {
		t.Errorf("Width(🇯🇵) = %d, want 2", w)
	}
	rows := hardWrap("ab🇯🇵🇯🇵cd", 4)
	if strings.Join(rows, "") != "ab🇯🇵🇯🇵cd" {
		t.Fatalf("wrapping lost text: %q", rows)
	}
	for _, r := range rows {
		if Width(r) > 4 {
			t.Errorf("row %q is %d cells", r, Width(r))
		}
	}
}

// The ASCII fast paths of Width and cut agree with uniseg's segmentation.
func TestASCIIWidthMatchesUniseg(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for c := 0x20; c < 0x7f; c++ {
		all.WriteByte(byte(c))
		if c%7 == 0 {
			all.WriteByte('\t')
		}
	}
	s := all.String()
	for i := 0; i < len(s); i += 5 {
		sub := s[i:]
		if w := Width(sub); w != uniseg.StringWidth(sub) {
			t.Errorf("Width(%q) = %d, uniseg %d", sub, w, uniseg.StringWidth(sub))
		}
		for n := 0; n < 12; n++ {
			h, tl := cut(sub, n)
			uh, ut := cutClusters(sub, n)
			if h != uh || tl != ut {
				t.Errorf("cut(%q, %d) = %q %q, by clusters %q %q", sub, n, h, tl, uh, ut)
			}
		}
	}
}

// cutClusters is cut without the ASCII fast path.
func cutClusters(s string, n int) (string, string) {
	w, i, state := 0, 0, -1
	for i < len(s) {
		cluster, _, cw, st := uniseg.FirstGraphemeClusterInString(s[i:], state)
		if w+cw > n && i > 0 {
			return s[:i], s[i:]
		}
		w, i, state = w+cw, i+len(cluster), st
	}
	return s, ""
}

// Every fence language's tokeniser (go/scanner for Go, an embedded chroma
// definition for the rest) tokenises into more than one kind of token, and
// an unknown or empty language has none.
// README.md "Development": lexers come from third_party/chromalexers.
func TestEveryEmbeddedLexerLoadsAndTokenises(t *testing.T) {
	t.Parallel()
	samples := map[string]string{"go": "package main\nfunc main() { x := `raw`; _ = x }\n", "python": "def f(x):\n    return x + 1\n",
		"sh": "for f in *; do echo \"$f\"; done\n", "ts": "const x: number = 1;\n", "rust": "fn main() { let x = 1; }\n",
		"json": `{"a": [1, true]}`, "yaml": "a: 1\n", "toml": "a = 1\n", "diff": "-a\n+b\n", "c": "int main(void) { return 0; }\n",
		"c++": "int main() {}\n", "java": "class A {}\n", "sql": "SELECT 1;\n", "makefile": "all:\n\techo hi\n",
		"Go {linenos=true}": "package main\n"}
	for lang, src := range samples {
		lex, _ := lexerFor(lang)
		if lex == nil {
			t.Errorf("no lexer for %q", lang)
			continue
		}
		toks, ok := lex(src)
		if !ok {
			t.Errorf("%s: does not tokenise", lang)
			continue
		}
		kinds := map[chroma.TokenType]bool{}
		for _, tok := range toks {
			kinds[tok.Type] = true
		}
		if len(kinds) < 2 {
			t.Errorf("%s: one token kind only: %v", lang, kinds)
		}
	}
	if l, _ := lexerFor("no-such-language"); l != nil || chromaLexer("") != nil {
		t.Error("an unknown language has a lexer")
	}
}
