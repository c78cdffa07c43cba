package mdterm

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	chromalexers "github.com/alecthomas/chroma/v2/lexers"
	"github.com/muesli/termenv"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// goTokens gives the tokens chroma's Go lexer gives, byte for byte, over a
// sample of $(go env GOROOT)/src, except inside number literals chroma's
// patterns cut short (0o755 is "0" and a name there, 0x1p-2 "0x1" and a
// name, 1e3i a float and a name): go/scanner reads them whole, as Go does.
// README.md "Configuration": Go is tokenised by go/scanner with chroma's token types byte for byte
func TestGoTokensMatchChroma(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: lexes a sample of GOROOT twice; make test runs it (go test without -short)")
	}
	t.Parallel()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		e2e.Missing(t, "go env GOROOT: "+err.Error())
	}
	const every = 25
	lexer := upstreamGo()
	files, bytes, numbers, n := 0, 0, 0, 0
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		if n++; n%every != 0 {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		got, ok := goTokens(string(b))
		if !ok {
			t.Errorf("%s: go/scanner's tokens do not tile the file", path)
			return nil
		}
		want := chromaReference(lexer, string(b), func(w []chroma.Token) bool { return !differs(byteTypes(got), byteTypes(w)) })
		numbers += compareTypes(t, path, got, want)
		files, bytes = files+1, bytes+len(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("only %d files compared", files)
	}
	t.Logf("%d files, %d bytes: same token types except %d bytes of number literals", files, bytes, numbers)
}

// chromaReference is chroma's tokens for src, lexed again (up to three
// more times) while they disagree with what is tested (agrees false).
// chroma gives every rule's regexp a 250 ms match timeout (regexp.go); on a
// loaded machine a match that waits that long for a core fails, and chroma
// goes on with the next rule — another token type, or an Error token — at
// a different byte each run: the reference's fault, not the tokeniser's. A
// real difference survives every lexing; a timed-out match does not.
func chromaReference(lexer chroma.Lexer, src string, agrees func([]chroma.Token) bool) []chroma.Token {
	var toks []chroma.Token
	for try := 0; try < 4; try++ {
		toks, _ = chromaTokens(lexer, src)
		if agrees(toks) {
			break
		}
	}
	return toks
}

// differs reports whether g and w give some byte different token types,
// other than inside g's number literals (compareTypes' rule).
func differs(g, w []chroma.TokenType) bool {
	if len(g) != len(w) {
		return true
	}
	for i := range g {
		if g[i] != w[i] && g[i] != chroma.LiteralNumber {
			return true
		}
	}
	return false
}

// compareTypes reports the first byte whose token type differs between got
// and want, other than inside got's number literals (the count returned).
func compareTypes(t *testing.T, path string, got, want []chroma.Token) (numbers int) {
	g, w := byteTypes(got), byteTypes(want)
	if len(g) != len(w) {
		t.Errorf("%s: %d bytes tokenised, chroma %d", path, len(g), len(w))
		return 0
	}
	for i := range g {
		switch {
		case g[i] == w[i]:
		case g[i] == chroma.LiteralNumber:
			numbers++
		default:
			t.Errorf("%s: byte %d: %v, chroma %v", path, i, g[i], w[i])
			return numbers
		}
	}
	return numbers
}

// byteTypes is the token type of every byte, number types as one, and every
// byte of a raw string a string: chroma's Go lexer re-lexes a raw string as
// a Go text template, which the highlighter does not (goTokens).
func byteTypes(toks []chroma.Token) []chroma.TokenType {
	var out []chroma.TokenType
	var src strings.Builder
	for _, tok := range toks {
		typ := tok.Type
		if typ.InCategory(chroma.LiteralNumber) {
			typ = chroma.LiteralNumber
		}
		for range len(tok.Value) {
			out = append(out, typ)
		}
		src.WriteString(tok.Value)
	}
	text := []byte(src.String())
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(text)), text, func(token.Position, string) {}, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if off := fset.Position(pos).Offset; tok == token.STRING && strings.HasPrefix(lit, "`") && off+len(lit) <= len(out) {
			for i := off; i < off+len(lit); i++ {
				out[i] = chroma.LiteralString
			}
		}
	}
	return out
}

// upstreamGo is chroma's Go lexer as released: the reference, linked only
// into this test (its package registers ~280 lexers at init).
func upstreamGo() chroma.Lexer { return chroma.Coalesce(chromalexers.Get("go")) }

// Fragments a model writes, broken ones included: the same types as
// chroma where chroma reads them right, and never a byte lost.
func TestGoTokensFragments(t *testing.T) {
	t.Parallel()
	lexer := upstreamGo()
	same := []string{
		"len(x) + len (y) + any(z)",
		"foo\n(1)",
		"foo /* c */ (1)",
		"x.go := nil; _ = iota",
		"//go:build linux\n// a comment\n//\n/* multi\nline */",
		"s := `raw\nstring` + \"q\\\"uote\" + 'x' + '\\n'",
		"a &^= b; c ^= d; e |= f; g <- h; i...; j != k => l ~m",
		"x := 0x1F + 0755 + 1_000 + .5 + 1. + 1e5 + 3i",
		"é(1); αβ := 2",
		"a ? b # c @ d $ e \\ f",
	}
	for _, src := range same {
		got, ok := goTokens(src)
		if !ok {
			t.Errorf("%q: not tiled", src)
			continue
		}
		want, _ := chromaTokens(lexer, src)
		if n := compareTypes(t, src, got, want); n != 0 {
			t.Errorf("%q: %d number bytes differ", src, n)
		}
	}
	// Where Go and chroma part ways, the text is kept whole.
	for _, src := range []string{"x := `open raw", "/* open comment\nx := 1", "a\r\nb\rc", "\ufeffpackage p", "x := \"\xff\"\x00", "'ab' + '", "fmt.Println(\"unterminated\n\"next\")"} {
		want := strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
		toks, ok := goTokens(src)
		if !ok { // the highlighter draws the block plain then
			rows := New(termenv.Ascii, false, true).Render("```go\n"+src+"\n```", 200)
			for _, l := range strings.Split(want, "\n") {
				if l = strings.TrimSpace(l); !strings.Contains(strings.Join(rows, "\n"), l) {
					t.Errorf("%q: drawn as %q, without %q", src, rows, l)
				}
			}
			continue
		}
		var b strings.Builder
		for _, tok := range toks {
			b.WriteString(tok.Value)
		}
		if b.String() != want {
			t.Errorf("%q: tokens spell %q", src, b.String())
		}
	}
}

// A Go block renders the same through go/scanner as through chroma's lexer.
func TestGoBlockRendersAsChroma(t *testing.T) {
	t.Parallel()
	r := New(termenv.TrueColor, true, true)
	w := &walker{st: &r.st, hl: r.hl, highlight: true}
	src := bigGo(50) + "func main() {\n\tif err := run(os.Args[1:]); err != nil {\n\t\tpanic(err)\n\t}\n}\n"
	toks, ok := goTokens(src)
	if !ok {
		t.Fatal("not tiled")
	}
	want, _ := chromaTokens(upstreamGo(), src)
	got, chroma := strings.Join(w.tokens(toks, 40), "\n"), strings.Join(w.tokens(want, 40), "\n")
	if got != chroma {
		t.Errorf("go/scanner:\n%s\nchroma:\n%s", got, chroma)
	}
}

func FuzzGoTokensTile(f *testing.F) {
	for _, s := range []string{"package p\nfunc f() {}\n", "x := `a", "/*", "'\\", "0x1p-2i", "a\rb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		toks, ok := goTokens(src)
		if !ok {
			return
		}
		var b strings.Builder
		for _, tok := range toks {
			b.WriteString(tok.Value)
		}
		if want := strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n"); b.String() != want {
			t.Fatalf("tokens spell %q, want %q", b.String(), want)
		}
	})
}
