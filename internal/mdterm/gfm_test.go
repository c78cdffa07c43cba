package mdterm

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/muesli/termenv"

	"github.com/codewhale/codewhale/internal/testutil/cputime"
)

var sgr = regexp.MustCompile(`\x1b\[([0-9;]*)m`)

// colours lists the distinct foreground colours in s.
func colours(s string) map[string]bool {
	out := map[string]bool{}
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		if i := strings.Index(m[1], "38;"); i >= 0 {
			out[m[1][i:]] = true
		}
	}
	return out
}

// Fenced Go and Python code is highlighted: more than one colour per fence.
func TestFencesAreHighlighted(t *testing.T) {
	t.Parallel()
	r := New(termenv.TrueColor, true, true)
	for lang, code := range map[string]string{
		"go":     "package main\n\nimport \"fmt\"\n\n// main greets.\nfunc main() {\n\tfmt.Println(\"hi\", 42)\n}",
		"python": "def greet(name):\n    # say hello\n    return f\"hi {name}\" * 2",
	} {
		out := strings.Join(r.Render("```"+lang+"\n"+code+"\n```", 80), "\n")
		if n := len(colours(out)); n < 3 {
			t.Errorf("%s: %d colours in %q", lang, n, out)
		}
		if plain := stripANSI(out); !strings.Contains(plain, strings.Split(code, "\n")[0]) {
			t.Errorf("%s: code text lost:\n%s", lang, plain)
		}
	}
}

// GFM: strikethrough, task lists, autolinks and aligned table columns.
func TestGFMExtensions(t *testing.T) {
	t.Parallel()
	r := New(termenv.Ascii, false, true)
	src := "~~gone~~ and https://example.com/x\n\n- [x] done\n- [ ] todo\n\n| left | right | mid |\n|:-----|------:|:---:|\n| a | 1 | x |\n| bbbb | 22222 | yyy |\n"
	got := stripANSI(strings.Join(r.Render(src, 80), "\n"))
	for _, want := range []string{"gone and https://example.com/x", "☑ done", "☐ todo", "│ a    │     1 │  x  │", "│ bbbb │ 22222 │ yyy │"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "~~") || strings.Contains(got, "[x]") {
		t.Errorf("markup left in:\n%s", got)
	}
}

// Nested lists and block quotes keep their structure inside their indent.
func TestNestedListsAndQuotes(t *testing.T) {
	t.Parallel()
	r := New(termenv.Ascii, false, true)
	got := stripANSI(strings.Join(r.Render("- one\n  - two\n    - three\n\n> quote\n> > inner", 40), "\n"))
	for _, want := range []string{"• one", "  • two", "    • three", "│ quote", "│ │ inner"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
}

// A 2,000-line block is highlighted once, in well under 20 ms on an idle
// machine (checked by BenchmarkHighlight2000Lines), and rendering it again
// reuses that work.
func TestHighlightIsCached(t *testing.T) {
	t.Parallel()
	r := New(termenv.TrueColor, true, true)
	src := "```go\n" + bigGo(2000) + "```\n"
	start := time.Now()
	first := r.Render(src, 100)
	cold := time.Since(start)
	start = time.Now()
	again := r.Render(src, 100)
	warm := time.Since(start)
	if len(first) != len(again) || first[10] != again[10] {
		t.Fatal("the cached rendering differs")
	}
	t.Logf("2,000 lines: first render %v, again %v", cold, warm)
}

func bigGo(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "\tx%d := fmt.Sprintf(\"%%d\", %d) // line %d\n", i, i, i)
	}
	return b.String()
}

// The first iteration in a process is the cold one (lexers built and
// compiled on first use): run with -benchtime 1x in fresh processes for it.
func BenchmarkHighlight2000Lines(b *testing.B) {
	benchHighlight(b, "go", bigGo(2000))
}

// chroma's lexer for each of chromaLangs on 2,000 lines of
// testdata/code/sample.<lang> repeated: run one sub-benchmark per fresh
// process with -test.benchtime 1x for a cold row.
func BenchmarkHighlight2000LinesLang(b *testing.B) {
	for _, lang := range chromaLangs {
		code := sampleLines(b, lang, 2000)
		b.Run(lang, func(b *testing.B) { benchHighlight(b, lang, code) })
	}
}

func benchHighlight(b *testing.B, lang, code string) {
	src := "```" + lang + "\n" + code + "```\n"
	b.ReportAllocs()
	defer cputime.PerOp(b)()
	for i := 0; i < b.N; i++ {
		r := New(termenv.TrueColor, true, true) // a fresh cache: the highlighting itself
		r.Render(src, 100)
	}
}

func BenchmarkRender2000LinesCached(b *testing.B) {
	src := "```go\n" + bigGo(2000) + "```\n"
	r := New(termenv.TrueColor, true, true)
	r.Render(src, 100)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Render(src, 100)
	}
}

// With a notifier (the TUI), a 2,000-line Go block is highlighted in place
// (go/scanner is fast enough), while a longer one and a block of any length
// for a chroma lexer are drawn plain first and coloured off the caller's
// goroutine, which notifies when they are ready.
func TestLongBlocksHighlightOffTheCaller(t *testing.T) {
	t.Parallel()
	r := New(termenv.TrueColor, true, true)
	ready := make(chan struct{}, 4)
	r.SetNotify(func() { ready <- struct{}{} })
	if out := strings.Join(r.Render("```go\n"+bigGo(2000)+"```\n", 100), "\n"); len(colours(out)) < 3 {
		t.Fatal("a 2,000-line Go block was not highlighted in place")
	}
	for _, src := range []string{"```go\n" + bigGo(syncGoLines+1) + "```\n", "```python\nx = 1  # one line\n```\n",
		"```ruby\n" + strings.Repeat("def f; 42; end  # comment\n", 200) + "```\n"} {
		if out := strings.Join(r.Render(src, 100), "\n"); len(colours(out)) > 2 { // the fence colour and the language label
			t.Fatalf("%.10q: highlighted in place", src)
		}
		<-ready
		if out := strings.Join(r.Render(src, 100), "\n"); len(colours(out)) < 3 {
			t.Fatalf("%.10q: not highlighted after the notification", src)
		}
	}
}
