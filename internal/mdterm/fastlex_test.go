package mdterm

import (
	"cmp"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/third_party/chromalexers"
)

// agreement is how a fast tokeniser and chroma's lexer typed the same
// bytes: exact counts bytes of the same token type, seen the bytes that are
// not white space, and visible those of them drawn in the same colour.
type agreement struct {
	files, bytes, exact, seen, visible int
	diffs                              map[[2]chroma.TokenType]*diffKind
}

// diffKind is one kind of difference: chroma's type, ours, how many
// bytes, and the first place it was seen.
type diffKind struct {
	bytes   int
	example string
}

func (a *agreement) add(path, src string, got, want []chroma.Token) error {
	g, w := exactTypes(got), exactTypes(want)
	if len(w) == len(g)+1 && !strings.HasSuffix(src, "\n") {
		w = w[:len(g)] // chroma's ensure_nl: a newline added at the end
	}
	if len(g) != len(w) {
		return fmt.Errorf("%s: %d bytes tokenised, chroma %d", path, len(g), len(w))
	}
	a.files++
	a.bytes += len(g)
	for i := range g {
		if g[i] == w[i] {
			a.exact++
		} else {
			k := [2]chroma.TokenType{w[i], g[i]}
			d := a.diffs[k]
			if d == nil {
				line := strings.Count(src[:i], "\n") + 1
				from := strings.LastIndexByte(src[:i], '\n') + 1
				d = &diffKind{example: fmt.Sprintf("%s:%d: %q", path, line, src[from:lineEnd(src, i)])}
				a.diffs[k] = d
			}
			d.bytes++
		}
		if isSpace(rune(src[i])) {
			continue
		}
		a.seen++
		if visibleColour(g[i]) == visibleColour(w[i]) {
			a.visible++
		}
	}
	return nil
}

// visibleColour is the colour a byte is drawn in: names and plain text are
// the same colour in both palettes (newSyntax).
func visibleColour(t chroma.TokenType) colour {
	if c := colourOf(t); c != colourName {
		return c
	}
	return colourPlain
}

func (a *agreement) report(t *testing.T, lang string) {
	t.Logf("%s: %d files, %d bytes: same token type %.3f %%, same colour %.3f %% of %d visible bytes",
		lang, a.files, a.bytes, 100*float64(a.exact)/float64(a.bytes), 100*float64(a.visible)/float64(a.seen), a.seen)
	keys := make([][2]chroma.TokenType, 0, len(a.diffs))
	for k := range a.diffs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y [2]chroma.TokenType) int { return cmp.Compare(a.diffs[y].bytes, a.diffs[x].bytes) })
	for _, k := range keys[:min(len(keys), 12)] {
		t.Logf("  %6d bytes chroma %v, ours %v; first at %.160s", a.diffs[k].bytes, k[0], k[1], a.diffs[k].example)
	}
}

func exactTypes(toks []chroma.Token) []chroma.TokenType {
	var out []chroma.TokenType
	for _, tok := range toks {
		for range len(tok.Value) {
			out = append(out, tok.Type)
		}
	}
	return out
}

// corpusBytes bounds each language's sample; docs/PERFORMANCE.md's
// agreement figures are from -fastlex-bytes 1048576.
var corpusBytes = flag.Int("fastlex-bytes", 384<<10, "bytes of real code per language for TestFastLexersMatchChroma")

// fastCorpus is one language's real code for the comparison.
type fastCorpus struct {
	lang        string // a fence language with a fast path
	roots       func() ([]string, error)
	exts        []string
	exact, seen float64 // thresholds: same type of all bytes, same colour of visible ones (%)
}

// Every fast tokeniser against chroma's lexer on real code, byte by byte.
// What differs is logged by kind; the thresholds hold what was measured
// (docs/PERFORMANCE.md lists the kinds of difference).
func TestFastLexersMatchChroma(t *testing.T) {
	t.Parallel()
	for _, c := range fastCorpora() {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			roots, err := c.roots()
			if err != nil || len(roots) == 0 {
				e2e.Missing(t, fmt.Sprintf("no %s code on this machine: %v", c.lang, err))
			}
			limit := *corpusBytes
			if testing.Short() {
				limit = min(limit, 128<<10)
			}
			fast, _ := fastLexer(c.lang)
			a := &agreement{diffs: map[[2]chroma.TokenType]*diffKind{}}
			lexer := chromalexers.Get(c.lang)
			for _, path := range corpusFiles(t, roots, c.exts, limit) {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				src := ensureLF(string(b))
				if err := a.add(path, src, fast(src), chromaReference(lexer, src)); err != nil {
					t.Error(err)
				}
			}
			a.report(t, c.lang)
			if a.files < 5 {
				t.Fatalf("only %d files compared", a.files)
			}
			if got := 100 * float64(a.exact) / float64(a.bytes); got < c.exact {
				t.Errorf("same token type for %.3f %% of the bytes, want ≥ %.2f %%", got, c.exact)
			}
			if got := 100 * float64(a.visible) / float64(a.seen); got < c.seen {
				t.Errorf("same colour for %.3f %% of the visible bytes, want ≥ %.2f %%", got, c.seen)
			}
		})
	}
}

// corpusFiles walks roots for files with one of exts, spread over the
// tree (every k-th file), until limit bytes; in a stable order.
func corpusFiles(t *testing.T, roots, exts []string, limit int) []string {
	var all []string
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if n := d.Name(); n == "test" || n == "tests" || n == "testdata" || strings.HasPrefix(n, ".") && path != root {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && slices.ContainsFunc(exts, func(e string) bool { return strings.HasSuffix(path, e) }) {
				all = append(all, path)
			}
			return nil
		})
	}
	var sizes int64
	for _, p := range all {
		if fi, err := os.Stat(p); err == nil {
			sizes += fi.Size()
		}
	}
	step := max(1, int(sizes/int64(limit)))
	var out []string
	total := 0
	for i := 0; i < len(all) && total < limit; i += step {
		fi, err := os.Stat(all[i])
		if err != nil || fi.Size() > 256<<10 || fi.Size() == 0 {
			continue
		}
		out = append(out, all[i])
		total += int(fi.Size())
	}
	t.Logf("%d of %d files, %d bytes", len(out), len(all), total)
	return out
}

// mcpServers is the npm packages of the MCP servers the tests run
// (.cache/mcp-servers at the repository's root).
func mcpServers() ([]string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), ".cache", "mcp-servers", "node_modules")
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	return []string{dir}, nil
}

func fastCorpora() []fastCorpus {
	return []fastCorpus{
		{lang: "python", exts: []string{".py"}, exact: 99, seen: 99, roots: func() ([]string, error) {
			out, err := exec.Command("python3", "-c", `import sysconfig;print(sysconfig.get_paths()["stdlib"])`).Output()
			return []string{strings.TrimSpace(string(out))}, err
		}},
		{lang: "javascript", exts: []string{".js", ".mjs", ".cjs"}, exact: 99, seen: 99, roots: mcpServers},
		{lang: "typescript", exts: []string{".ts", ".tsx", ".mts"}, exact: 99, seen: 99, roots: mcpServers},
	}
}

// Fragments a model writes, half-streamed and broken ones included: the
// same token types as chroma's lexer, byte for byte.
func TestFastLexerFragments(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"python": {
			"x = 'unterminated\ny = 1", `f"{x!r:>{w}}" "{0.a[1]!s:*^10,.2f}" "{:<}" "{"`, "def\nf(): pass", "class (x): pass",
			"from .. import (a,\n b)", "import a.b as c, d\nimport x", "raise X from e", "print(x.print, self.cls, Exception)",
			"\"\"\"open triple\nstill", "@ decorator . x\n@\n", "0x_1F 0o17 0b1 1_000.5e-3 1e5j .5 1. 07 0xg 1__0",
			"a := b != c == d << e >> f ** g // h @ i -> j", "#!/usr/bin/env python\n# c", "#!\n", "x = \\\n  1 \\ y",
			`f'{a:{b}}' rb'\x' Rb"\"" u'\u1234' '\N{BULLET}' "\8" r"""\"""" '\777'`, "x = $ ? ! `", "αβ = 1; é()",
			"lambda: (yield from x); async for i in y: await z", `f"{x=}" f"{x = !r}" f"{{}}" f"{ {1:2}[1] }" f"{'a' if b else 'c'}"`,
			"'%(name)s %-5d %.*f %% %' % d", "yield  from", "def __init__(self): __name__", "x.match(y); case _:",
			"f'{x\ny}'", "f'''{x\n}'''", "'a\\\nb'", "from x import None", "class\\\n A: pass", "print (1)",
		},
		"javascript": {
			"a = b / c / d", `x = /re[/]\//gi.test(s)`, "if (/a/.test(x)) {}", "`a ${b + `c ${d}`} \\` \\n $`", `'it\'s' "q\"" 'open`,
			"<!-- c\n-->", "/* open", "#!/usr/bin/env node\nx", "x_if y$ $z _a if$", "0b101 0o17 0xFF 1.5e3 1e5 1_000 1.",
			"a ?? b?.c ... => **= >>>= !== ===", `\u0041bc = 1`, "/re/x\n", "x = 1 /* c */ / 2", "// no newline", "\"a\\\"b",
			"é = 1; x\\\ny", "return /=/; z",
		},
		"typescript": {
			"let a: Map<string, number> = new Map()", "for (let i = 0; i<n; i++) {}\nnext()",
			`render() { return <div className="x" on={() => 1}>hi</div> }`, "@Component({a: 1})", "declare module \"foo\" {\n}",
			"x ? y : z", "`a\\nb ${c}`", "type A = { b?: string }", "super(a, b)", "<>x</>", "0x1F 1.5f 2.0e3 3 1e5",
			"const f = (a) => a ... b", "<!-- c -- d -->", "a<b/>", "a</b.c>", "x: 1; é: y; $a$b",
		},
	}
	for lang, srcs := range cases {
		fast, _ := fastLexer(lang)
		lexer := chromalexers.Get(lang)
		for _, src := range srcs {
			got, want := fast(src), chromaReference(lexer, src)
			g, w := exactTypes(got), exactTypes(want)
			if len(w) == len(g)+1 && !strings.HasSuffix(src, "\n") {
				w = w[:len(g)]
			}
			if len(g) != len(w) {
				t.Errorf("%s %q: %d bytes, chroma %d", lang, src, len(g), len(w))
				continue
			}
			for i := range g {
				if g[i] != w[i] {
					t.Errorf("%s %q: byte %d (%q): %v, chroma %v", lang, src, i, src[i:min(i+8, len(src))], g[i], w[i])
					break
				}
			}
		}
	}
}

// Whatever the input, a fast tokeniser's tokens spell it (newlines as
// chroma normalises them).
func FuzzFastLexersTile(f *testing.F) {
	for _, s := range []string{"def f(x):\n    return f'{x!r}'\n", "x = '", "f'{", "'''", "@", "0x", "\\", "a\rb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, c := range fastCorpora() {
			fast, _ := fastLexer(c.lang)
			var b strings.Builder
			for _, tok := range fast(src) {
				b.WriteString(tok.Value)
			}
			if want := ensureLF(src); b.String() != want {
				t.Fatalf("%s: tokens spell %q, want %q", c.lang, b.String(), want)
			}
		}
	})
}

// Every name that picks a fast tokeniser picks the same language in chroma.
func TestFastLexerNamesAreChromas(t *testing.T) {
	t.Parallel()
	want := map[string]string{"python": "Python", "javascript": "JavaScript", "typescript": "TypeScript"}
	for _, name := range []string{"python", "py", "sage", "python3", "py3", "starlark", "pyi", "pyw", "bzl", "star",
		"javascript", "js", "mjs", "cjs", "jsm", "typescript", "ts", "tsx", "mts", "cts"} {
		fast, ok := fastLexer(name)
		if !ok {
			t.Errorf("%s: no fast tokeniser", name)
			continue
		}
		l := chromalexers.Get(name)
		if l == nil {
			t.Errorf("%s: chroma has no lexer", name)
			continue
		}
		var lang string
		for l, f := range want {
			if g, _ := fastLexer(l); fmt.Sprintf("%p", g) == fmt.Sprintf("%p", fast) {
				lang = f
			}
		}
		if got := l.Config().Name; got != lang {
			t.Errorf("%s: chroma's lexer is %s, ours %s", name, got, lang)
		}
	}
}
