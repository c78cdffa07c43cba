package archtest

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// hole stands for a substituted value: a `<placeholder>` in the contract, a
// formatting verb in the code.
const hole = "\x01"

// TestContractExactStrings checks that every string docs/CONTRACT.md marks
// *exact* occurs in the code: each run of literal text between placeholders
// (at least minFragment bytes long) must appear in some string literal of a
// production Go file. A contract that drifts from the code fails here.
func TestContractExactStrings(t *testing.T) {
	t.Parallel()
	const minFragment = 8
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "CONTRACT.md"))
	if err != nil {
		t.Fatal(err)
	}
	corpus := codeStrings(t)
	checked := 0
	for _, block := range blocks(string(doc)) {
		if !strings.Contains(block, "*exact*") {
			continue
		}
		for _, span := range codeSpans(block) {
			if !strings.Contains(span, " ") || len(span) < 16 {
				continue // an identifier or a value, not a sentence
			}
			checked++
			for _, frag := range strings.Split(placeholders.ReplaceAllString(span, hole), hole) {
				frag = strings.TrimSpace(frag)
				if len(frag) >= minFragment && !strings.Contains(corpus, frag) {
					t.Errorf("CONTRACT.md marks %q exact, but no string in the code contains %q", span, frag)
				}
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d exact strings found in CONTRACT.md; the check is not reading it", checked)
	}
}

// placeholders are `<name>` (a word, a list like <a, b>, or alternatives
// like <run|wait>) and the ellipsis standing for elided text.
var placeholders = regexp.MustCompile(`<[^<>\n]{1,80}>|…`)

// blocks splits markdown into paragraphs, list items and table rows.
func blocks(doc string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, line := range strings.Split(doc, "\n") {
		trim := strings.TrimSpace(line)
		starts := trim == "" || strings.HasPrefix(trim, "- ") || strings.HasPrefix(trim, "|") ||
			strings.HasPrefix(trim, "#") || regexp.MustCompile(`^\d+\. `).MatchString(trim)
		if starts {
			flush()
		}
		cur.WriteString(line + "\n")
	}
	flush()
	return out
}

// codeSpans returns the contents of markdown code spans (`x`, “ `x` “).
func codeSpans(block string) []string {
	var out []string
	for i := 0; i < len(block); {
		if block[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(block) && block[i+n] == '`' {
			n++
		}
		fence := strings.Repeat("`", n)
		end := strings.Index(block[i+n:], fence)
		if end < 0 {
			break
		}
		span := block[i+n : i+n+end]
		if n > 1 {
			span = strings.TrimSpace(span)
		}
		out = append(out, strings.ReplaceAll(span, "\n", " "))
		i += n + end + n
	}
	return out
}

var verbs = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)

// codeStrings is every string literal of the production Go files, with
// adjacent literals joined across + and formatting verbs as holes, one per
// line.
func codeStrings(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, p := range packages(t) {
		if p.DepOnly || !strings.HasPrefix(p.ImportPath, module+"/") {
			continue
		}
		for _, name := range append(append([]string(nil), p.GoFiles...), p.IgnoredGoFiles...) {
			src, err := os.ReadFile(filepath.Join(p.Dir, name))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range literals(src) {
				s = strings.ReplaceAll(strings.ReplaceAll(s, "%%", "\x02"), "%q", `"%s"`)
				s = strings.ReplaceAll(verbs.ReplaceAllString(s, hole), "\x02", "%")
				b.WriteString(s + "\n")
			}
		}
	}
	return b.String()
}

// literals scans src for string literals, joining "a" + "b" into one and
// standing a hole in for a plain identifier between them ("a" + name + "b").
func literals(src []byte) []string {
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", fset.Base(), len(src)), src, nil, 0)
	var out []string
	chain, join := false, false // the last token ended a string chain; a + follows it
	for {
		_, tok, lit := s.Scan()
		switch {
		case tok == token.EOF:
			return out
		case tok == token.STRING:
			v, err := strconv.Unquote(lit)
			if err != nil {
				chain, join = false, false
				continue
			}
			if join {
				out[len(out)-1] += v
			} else {
				out = append(out, v)
			}
			chain, join = true, false
		case tok == token.ADD:
			join, chain = chain, false
		case tok == token.IDENT && join:
			out[len(out)-1] += hole
			chain, join = true, false
		default:
			chain, join = false, false
		}
	}
}
