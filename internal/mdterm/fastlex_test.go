package mdterm

import (
	"cmp"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
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

// sameAs is chromaReference's test for a fast lexer's tokens got of src:
// every byte the same token type (chroma's ensure_nl newline aside).
func sameAs(src string, got []chroma.Token) func([]chroma.Token) bool {
	g := exactTypes(got)
	return func(want []chroma.Token) bool {
		w := exactTypes(want)
		if len(w) == len(g)+1 && !strings.HasSuffix(src, "\n") {
			w = w[:len(g)]
		}
		return slices.Equal(g, w)
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
	shebang     *regexp.Regexp // files without an extension whose first line this matches count too
	exact, seen float64        // thresholds: same type of all bytes, same colour of visible ones (%)
}

// Every fast tokeniser against chroma's lexer on real code, byte by byte.
// What differs is logged by kind. Measured on 250 KB–3 MB a language
// (docs/PERFORMANCE.md names the corpora): 100.000 % of the bytes of every
// language get chroma's token type, so of course its colour; no kind of
// difference is left (the one found, in C++, was ours and is fixed). The
// thresholds, 99.9 %, leave room only for another machine's corpus to meet
// a corner no corpus here has.
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
			lexer := chromaLexer(c.lang)
			for _, path := range corpusFiles(t, roots, c.exts, c.shebang, limit) {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				src := ensureLF(string(b))
				got := fast(src)
				if err := a.add(path, src, got, chromaReference(lexer, src, sameAs(src, got))); err != nil {
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
func corpusFiles(t *testing.T, roots, exts []string, shebang *regexp.Regexp, limit int) []string {
	var all []string
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if n := d.Name(); n == "test" || n == "tests" || n == "testdata" || n == ".git" {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if slices.ContainsFunc(exts, func(e string) bool { return strings.HasSuffix(path, e) }) || shebang != nil && !strings.Contains(d.Name(), ".") && firstLineMatches(path, shebang) {
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

// firstLineMatches reports whether path's first line matches re.
func firstLineMatches(path string, re *regexp.Regexp) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 128)
	n, _ := f.Read(head)
	line, _, _ := strings.Cut(string(head[:n]), "\n")
	return re.MatchString(line)
}

// existing is the directories of dirs that exist, from the environment
// variable env (a directory) first.
func existing(env string, dirs ...string) ([]string, error) {
	var out []string
	for _, d := range append([]string{os.Getenv(env)}, dirs...) {
		if fi, err := os.Stat(d); d != "" && err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out, nil
}

func repoRoot() string {
	out, _ := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	return strings.TrimSpace(string(out))
}

func goModCache() string {
	out, _ := exec.Command("go", "env", "GOMODCACHE").Output()
	return strings.TrimSpace(string(out))
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
		{lang: "python", exts: []string{".py"}, exact: 99.9, seen: 99.9, roots: func() ([]string, error) {
			out, err := exec.Command("python3", "-c", `import sysconfig;print(sysconfig.get_paths()["stdlib"])`).Output()
			return []string{strings.TrimSpace(string(out))}, err
		}},
		{lang: "javascript", exts: []string{".js", ".mjs", ".cjs"}, exact: 99.9, seen: 99.9, roots: mcpServers},
		{lang: "typescript", exts: []string{".ts", ".tsx", ".mts"}, exact: 99.9, seen: 99.9, roots: mcpServers},
		{lang: "bash", exts: []string{".sh", ".bash"}, shebang: regexp.MustCompile(`^#!.*\b(ba|k|z|da)?sh\b`), exact: 99.9, seen: 99.9,
			roots: func() ([]string, error) {
				return existing("CODEWHALE_FASTLEX_SH", "/usr/bin", filepath.Join(repoRoot(), "scripts"))
			}},
		{lang: "json", exts: []string{".json"}, exact: 99.9, seen: 99.9, roots: mcpServers},
		{lang: "yaml", exts: []string{".yaml", ".yml"}, exact: 99.9, seen: 99.9,
			roots: func() ([]string, error) { return existing("CODEWHALE_FASTLEX_YAML", goModCache()) }},
		{lang: "c", exts: []string{".c", ".h"}, exact: 99.9, seen: 99.9, roots: func() ([]string, error) {
			out, _ := exec.Command("go", "env", "GOROOT").Output()
			return existing("CODEWHALE_FASTLEX_C", filepath.Join(strings.TrimSpace(string(out)), "src"), "/usr/include")
		}},
		{lang: "cpp", exts: []string{".cpp", ".cc", ".hpp", ".cxx", ".tcc", ".h"}, exact: 99.9, seen: 99.9,
			roots: func() ([]string, error) { return existing("CODEWHALE_FASTLEX_CPP", "/usr/include/c++") }},
		{lang: "rust", exts: []string{".rs"}, exact: 99.9, seen: 99.9, roots: func() ([]string, error) {
			home, _ := os.UserHomeDir()
			sysroot, _ := exec.Command("rustc", "--print", "sysroot").Output()
			debian, _ := filepath.Glob("/usr/src/rustc-*/library") // Debian's rust-src (.ci/run installs it)
			return existing("CODEWHALE_FASTLEX_RUST", append(debian, filepath.Join(strings.TrimSpace(string(sysroot)), "lib", "rustlib", "src"),
				filepath.Join(home, ".cargo", "registry", "src"))...)
		}},
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
		"bash": {
			"#!/bin/sh\nif [ -f x ]; then echo hi; fi", "x=1 y+=2 z = 3", "echo \"a $b ${c:-d} $(e) $((1+2))\"", "echo 'open",
			"cat <<EOF\nbody\nEOF\n", "cat <<-'END'\n\tx\n\tEND", "cat <<EO\nx E", "a && b || c; d & e | f", "echo `date` $'\\n' $\"x\"",
			"${#arr[@]} $1 $? $$ $! $_x $- $", "for i in 1 2 3; do :; done", "2>&1 12 x12 12x", "done\ndo\nfunction f() { return 0; }",
			"echo \\$HOME \\", "case $x in a) ;; esac", "time ls\ntimes\ntype)", "\"unterminated $x", "$((x ** 2 | 16#ff 2# ))", "a<b<<<c",
		},
		"json": {
			`{"a": 1, "b": [true, false, null, -0.5e-3, 01], "c": {"d": "e\"f"}}`, `{"a" 1}`, `[1, 2,]`, `{"open": "str`,
			"// comment\n{}", "// at the end", `{"a": tru}`, `"\\"`, "} ]", `{"a": {"b": {"c": [[]]}}}`, "1.2.3 -x",
		},
		"yaml": {
			"key: value\nlist:\n  - a\n  - b: c\n", "--- \n...\n", "a: 'single' # c\nb: \"double \\\" q\"", "x: yes\ny: No\nz: n\nw: nope",
			"d: 2024-01-02\nt: 2024-01-02T03:04:05.6Z\nn: 0x1f\nf: -1.5e+3\ni: .inf", "text: a # b # c\nurl: http://x//y // z",
			"block: |\n  one\n\n  two\nnext: >-\n  folded\nafter: 1", "!!str x &anchor *alias", "%include foo\n%include\n",
			"\"quoted key\": v\n\"a\": \"b\": c", "? complex\n: value", "{a: 1, b: [2, 3]}", "key:\n  nested: 1", "-x: 1\n- - y",
			"a:b: c", "k: v //c", "é: ü # ç",
		},
		"c": {
			"#include <stdio.h>\nstatic int\nmain(int argc, char **argv) {\n  printf(\"%d\\n\", argc); // c\n  return 0;\n}\n",
			"#if 0\nx\n#if 1\n#endif\ny\n#else\nz\n#endif\n", "#define A(x) \\\n  ((x) + 1) /* c */\n  #  include \"a.h\"\nint y;",
			"struct s { int a; };\nlabel: x = y ? 1 : 2;", "char c = L'\\x41', d = '\\012', e = 'ab';", "size_t n = 0x1fUL + 1.5e3f + .5 + 1. + 017 + 08 + 1f;",
			"void f(void);\nint g(int (*cb)(void)) { return cb(); }", "x = \"open\ny", "/* open", "a */ b", "uint32_t u; int_fast8_t f; my_type_t t;",
		},
		"cpp": {
			"namespace a {\ntemplate <class T> class B : public C<T> {\n public:\n  [[nodiscard]] auto f() const noexcept -> int { return 0x1'f + 0b1'0 + 1'000; }\n};\n}",
			"enum class E { X };\nenum  class\nF;", "auto s = u8\"x\" u\"y\" U\"z\" L\"w\" R\"(raw)\";", "#include <vector>\n#include \"a.h\"\n#include\n",
			"struct {\n int a;\n} v;", "class [[deprecated]] Old;", "void f() {\n  #ifdef X\n  g();\n  #endif\n}", "wchar_t w; char8_t c; std::size_t n;",
			"0'17 0x'1 08 0178", "a ? b : c; case X: break;",
		},
		"rust": {
			"fn main() { let x: u32 = 1u32 + 0x_ff + 0b1 + 0o7 + 1.5e3 + 1.; }", "let s = \"a\\n\\x7f\\u{1F600}\" + r#\"raw\"# + b\"\\xff\";",
			"println!(\"{} {x:?} {{}}\", a); format!(\"}\"); vec![1]; my_macro!{}", "'a' '\\n' b'x' '\\'' 'static '_ 'label: loop { break 'label; }",
			"/* a /* nested */ b */ /** doc */ /*! inner */ //! top\n/// doc\n//// not doc\n", "#![allow(dead_code)]\n#[derive(Debug, \"x\")]\nstruct A;",
			"impl<T: Clone> Trait for A<T> where T: Send { fn f(&self) -> Option<T> { None } }", "mod foo; use a::b::{c, d}; x::<u8>()",
			"const MAX_SIZE: usize = 1; let IO = A1; _FOO; r#type", "default fn f() {} default type T = u8;", "$x $( $y ),* $, $",
			"x.0.1; 1..2; 1..=3; 1.5.; 2.25.", "#!/usr/bin/env run-cargo-script\nfn main() {}", "Self::new(); self.x", "a -> b; c: &'a mut d",
			"\"open string", "'", "b'", "continue\nbreak 'a",
		},
	}
	for lang, srcs := range cases {
		fast, _ := fastLexer(lang)
		lexer := chromaLexer(lang)
		for _, src := range srcs {
			got := fast(src)
			want := chromaReference(lexer, src, sameAs(src, got))
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
	want := map[string]string{"python": "Python", "javascript": "JavaScript", "typescript": "TypeScript", "bash": "Bash",
		"json": "JSON", "yaml": "YAML", "rust": "Rust", "c": "C", "cpp": "C++"}
	for _, name := range []string{"python", "py", "sage", "python3", "py3", "starlark", "pyi", "pyw", "bzl", "star",
		"javascript", "js", "mjs", "cjs", "jsm", "typescript", "ts", "tsx", "mts", "cts", "bash", "sh", "ksh", "zsh", "shell",
		"json", "jsonl", "jsonc", "json5", "yaml", "yml", "rust", "rs", "c", "h", "cpp", "c++", "cc", "cxx", "hpp", "hh", "hxx", "h++", "cp", "tpp"} {
		fast, ok := fastLexer(name)
		if !ok {
			t.Errorf("%s: no fast tokeniser", name)
			continue
		}
		l := chromaLexer(name)
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

// Every fast tokeniser against chroma's lexer on what the fuzzer makes of
// the fragments (valid ASCII: chroma decodes invalid UTF-8 to U+FFFD, and
// its \d takes digits outside ASCII). The seed corpus runs in go test.
func FuzzFastLexersMatchChroma(f *testing.F) {
	for _, lang := range []string{"python", "javascript", "typescript", "bash", "json", "yaml", "rust", "c", "cpp"} {
		data, err := os.ReadFile(filepath.Join("testdata", "fastlex", "sample."+map[string]string{"python": "py", "javascript": "js",
			"typescript": "ts", "bash": "sh", "json": "json", "yaml": "yaml", "rust": "rs", "c": "c", "cpp": "cpp"}[lang]))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(lang, string(data))
	}
	f.Fuzz(func(t *testing.T, lang, src string) {
		fast, ok := fastLexer(lang)
		if !ok || strings.ContainsFunc(src, func(r rune) bool { return r >= utf8.RuneSelf }) || !utf8.ValidString(src) {
			return
		}
		src = ensureLF(src)
		got := fast(src)
		g, w := exactTypes(got), exactTypes(chromaReference(chromaLexer(lang), src, sameAs(src, got)))
		if len(w) == len(g)+1 && !strings.HasSuffix(src, "\n") {
			w = w[:len(g)]
		}
		if len(g) != len(w) {
			t.Fatalf("%s %q: %d bytes, chroma %d", lang, src, len(g), len(w))
		}
		for i := range g {
			if g[i] != w[i] {
				t.Fatalf("%s %q: byte %d (%q): %v, chroma %v", lang, src, i, src[i:min(i+8, len(src))], g[i], w[i])
			}
		}
	})
}

// Hostile single-line blocks a model could send (in place: one line is
// under every line limit): each tokeniser stays linear where a search
// could fail to the end of the block at every position (cursor.find).
func BenchmarkFastLexersHostile(b *testing.B) {
	const n = 40000
	cases := []struct{ name, lang, src string }{
		{"python-unicode-names", "python", `"` + strings.Repeat(`\N{`, n) + `"`},
		{"python-format-fields", "python", `"` + strings.Repeat("{a[", n) + `"`},
		{"rust-raw-strings", "rust", strings.Repeat(`r#"`, n)},
		{"rust-format", "rust", `println!("` + strings.Repeat("{x", n)},
		{"c-macro-comments", "c", "#define " + strings.Repeat("/*", n)},
		{"js-regex-classes", "javascript", strings.Repeat("=/[", n)},
		{"ts-tags", "typescript", strings.Repeat("a<b ", n)},
		{"cpp-calls", "cpp", strings.Repeat("int a(", n)},
		{"yaml-keys", "yaml", strings.Repeat("a: ", n)},
		{"bash-heredoc", "bash", "<<" + strings.Repeat("a", n) + " x"},
	}
	for _, tc := range cases {
		fast, _ := fastLexer(tc.lang)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.src)))
			for b.Loop() {
				fast(tc.src)
			}
		})
	}
}
