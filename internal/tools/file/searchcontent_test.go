package file

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

func searchEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, Options{})
	e.put(".gitignore", "*.gen.go\nvendor/\n")
	e.put("a.go", "package a\n\nfunc Alpha() {}\nfunc beta() {}\n")
	e.put("b/b.go", "package b\r\n// TODO: Alpha\r\nfunc Gamma() {}\r\n")
	e.put("b/z.gen.go", "func Alpha() {}\n") // ignored by .gitignore
	e.put("b/.gitignore", "skip.txt\n")
	e.put("b/skip.txt", "Alpha\n")                // ignored by the nested .gitignore
	e.put("vendor/v.go", "func Alpha() {}\n")     // ignored directory
	e.put("node_modules/m.js", "Alpha\n")         // default exclude
	e.put("web/app.min.js", "Alpha\n")            // default exclude
	e.put("bin.dat", "Alpha\x00\x01\x02")         // binary
	e.put("latin1.txt", "Alpha caf\xe9\n")        // not UTF-8: searched, as rg does
	e.put("notes/.hidden.md", "Alpha (hidden)\n") // hidden files are searched
	return e
}

func TestSearchContent(t *testing.T) {
	t.Parallel()
	e := searchEnv(t)
	type hit struct {
		File string
		Line int
	}
	hits := func(in string) ([]hit, contentResult) {
		res := decode[contentResult](t, e.callOK(in).Content)
		var out []hit
		for _, m := range res.Matches {
			out = append(out, hit{m.File, m.LineNumber})
		}
		return out, res
	}
	cases := []struct {
		name, in string
		want     []hit
	}{
		{"regex", `{"action":"search_content","pattern":"func [A-Z]\\w+\\("}`, []hit{{"a.go", 3}, {"b/b.go", 3}}},
		{"literal", `{"action":"search_content","pattern":"Alpha()","literal":true}`, []hit{{"a.go", 3}}},
		{"regex metachars differ from literal", `{"action":"search_content","pattern":"Alpha()"}`, []hit{{"a.go", 3}, {"b/b.go", 2}, {"latin1.txt", 1}, {"notes/.hidden.md", 1}}},
		{"case-insensitive", `{"action":"search_content","pattern":"todo","case_insensitive":true}`, []hit{{"b/b.go", 2}}},
		{"case-sensitive by default", `{"action":"search_content","pattern":"todo"}`, nil},
		{"anchors work per line, CRLF stripped", `{"action":"search_content","pattern":"^func Gamma\\(\\) \\{\\}$"}`, []hit{{"b/b.go", 3}}},
		{"include", `{"action":"search_content","pattern":"Alpha","include":["*.md"]}`, []hit{{"notes/.hidden.md", 1}}},
		{"exclude replaces defaults", `{"action":"search_content","pattern":"Alpha","exclude":["*.go","*.md"]}`,
			[]hit{{"latin1.txt", 1}, {"node_modules/m.js", 1}, {"web/app.min.js", 1}}},
		{"path to a subdirectory", `{"action":"search_content","pattern":"Alpha","path":"b"}`, []hit{{"b/b.go", 2}}},
		{"path to an ignored file searches it", `{"action":"search_content","pattern":"Alpha","path":"b/z.gen.go"}`, []hit{{"b/z.gen.go", 1}}},
		{"path to an ignored directory searches it", `{"action":"search_content","pattern":"Alpha","path":"vendor"}`, []hit{{"vendor/v.go", 1}}},
	}
	for _, c := range cases {
		got, _ := hits(c.in)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %s\n got %v\nwant %v", c.name, c.in, got, c.want)
		}
	}
	_, res := hits(`{"action":"search_content","pattern":"Alpha"}`)
	// a.go, b/b.go, latin1.txt, notes/.hidden.md, .gitignore, b/.gitignore: the binary file is skipped and said so.
	if res.FilesSearched != 6 || res.Truncated || res.Skipped == nil || res.Skipped.Binary != 1 {
		t.Errorf("files_searched=%d truncated=%v skipped=%+v", res.FilesSearched, res.Truncated, res.Skipped)
	}
	if res.Defaults == nil || !reflect.DeepEqual(res.Defaults.Skipped, []string{"node_modules/", "web/app.min.js"}) {
		t.Errorf("defaults report: %+v", res.Defaults)
	}
	mustContain(t, e.callErr(`{"action":"search_content","pattern":"("}`), "Invalid regex pattern: error parsing regexp")
	// A line break is refused as rg refuses it, never matched silently by nothing (CONTRACT.md §6.2).
	for _, in := range []string{`"Alpha\\nBeta"`, `"Alpha\nBeta"`, `"[\\n]"`} {
		mustContain(t, e.callErr(`{"action":"search_content","pattern":`+in+`}`), `the literal "\n" is not allowed`)
	}
	mustContain(t, e.callErr(`{"action":"search_content","literal":true,"pattern":"Alpha\nBeta"}`), `the literal "\n" is not allowed`)
	if got, _ := hits(`{"action":"search_content","pattern":"Alph[^\\n]"}`); len(got) == 0 {
		t.Errorf("a class that excludes the newline was refused or matched nothing")
	}
	mustContain(t, e.callErr(`{"action":"search_content","pattern":"x","path":"nope"}`), "Failed to search "+e.path("nope"))
}

func TestSearchContentContextShapes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.put("f.txt", "one\ntwo\nMATCH\nfour\nfive\n")
	e.put("edge.txt", "MATCH at top\nlast\n")
	cases := []struct {
		in            string
		before, after any
	}{
		{`{"action":"search_content","pattern":"^MATCH$"}`, []any{"one", "two"}, []any{"four", "five"}},
		{`{"action":"search_content","pattern":"^MATCH$","context_lines":1}`, "two", "four"},
		{`{"action":"search_content","pattern":"^MATCH$","context_lines":0}`, []any{}, []any{}},
		{`{"action":"search_content","pattern":"^MATCH$","context_lines":50}`, []any{"one", "two"}, []any{"four", "five"}},
		{`{"action":"search_content","pattern":"top","context_lines":1}`, "", "last"},
		{`{"action":"search_content","pattern":"top","context_lines":3}`, []any{}, []any{"last"}},
	}
	for _, c := range cases {
		res := decode[map[string]any](t, e.callOK(c.in).Content)
		m := res["matches"].([]any)[0].(map[string]any)
		if !reflect.DeepEqual(m["context_before"], c.before) || !reflect.DeepEqual(m["context_after"], c.after) {
			t.Errorf("%s: before %#v after %#v", c.in, m["context_before"], m["context_after"])
		}
	}
}

func TestSearchContentBudgetAndHugeFiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	for i := range 30 {
		e.put(fmt.Sprintf("d/f%02d.txt", i), strings.Repeat("hit\n", 10))
	}
	res := decode[contentResult](t, e.callOK(`{"action":"search_content","pattern":"hit","max_results":25}`).Content)
	if res.TotalMatches != 300 || len(res.Matches) != 25 || !res.Truncated || res.NextOffset != 25 ||
		res.Matches[24].File != "d/f02.txt" || res.Matches[24].LineNumber != 5 {
		t.Errorf("max_results: total=%d shown=%d truncated=%v next=%d", res.TotalMatches, len(res.Matches), res.Truncated, res.NextOffset)
	}
	res = decode[contentResult](t, e.callOK(`{"action":"search_content","pattern":"hit","max_results":25,"offset":290}`).Content)
	if res.TotalMatches != 300 || len(res.Matches) != 10 || res.Truncated || res.Matches[0].File != "d/f29.txt" {
		t.Errorf("offset: total=%d shown=%d truncated=%v", res.TotalMatches, len(res.Matches), res.Truncated)
	}
	// Exactly filling the budget is not truncation.
	res = decode[contentResult](t, e.callOK(`{"action":"search_content","pattern":"hit","path":"d/f00.txt","max_results":10}`).Content)
	if res.TotalMatches != 10 || res.Truncated {
		t.Errorf("exact budget: total=%d truncated=%v", res.TotalMatches, res.Truncated)
	}

	big := bytes.Repeat([]byte("padding line\n"), (maxSearchFileBytes/13)+10)
	if err := os.WriteFile(e.path("big.txt"), append(big, "needle\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	e.put("long.txt", "needle "+strings.Repeat("x", 50000)+"\n")
	res = decode[contentResult](t, e.callOK(`{"action":"search_content","pattern":"needle"}`).Content)
	if res.TotalMatches != 1 || res.Matches[0].File != "long.txt" || res.Skipped == nil || res.Skipped.TooLarge != 1 {
		t.Fatalf("over-10-MiB file must be skipped and said so: %+v %+v", res.Matches, res.Skipped)
	}
	if l := res.Matches[0].Line; len(l) > maxShownLine+100 || !strings.Contains(l, "[line truncated: 50007 bytes]") {
		t.Errorf("long line not cut: %d bytes", len(l))
	}
}

// TestMatcherAgreesWithPlainRegex checks the literal prefilter against
// running the regex on every line, over random text.
func TestMatcherAgreesWithPlainRegex(t *testing.T) {
	t.Parallel()
	patterns := []string{`foo`, `foo\d+bar`, `(?i)hello`, `(?i)sk`, `^foo`, `bar$`, `a.c`, `(x|y)z`, `\bword\b`,
		`func \w+Handler\(`, `[[:upper:]]+`, `[a-z]{5,}`, `(ab|c)d`, `x?y{2}`, `\b[a-z]{6,}\b`, `(foo)+`, `x{2,}`, `(?i)kelvin`, `é+`, `(?i)ÉTÉ`, `\r`, `a\nb`,
		`foo|bar\d`, `(?i)(hello|word)`, `func (Read|Write)`, `a|(b|cd)e`, `(?i)s|k`, `x(y|)z`,
		`(?i)abc|é`, `(?i)STRASSE|ǅ`, `(?i)x|é|y`, `(?i)(?:é|É)t`, `(?i)caf[eé]`, `(?i:ab)|É`,
		`\p{Greek}+`, `[αβ]x`, `(?i)[é]`, `\p{Han}|é`, `(?i)Ω|é`, `\p{Greek}|\d`, `(?i)ééééé`, `(?i)xéÉéÉy`}
	alphabet := []string{"foo", "bar", "Hello", "HELLO", "sk", "SK", "\u212A", "\u017F", "word", "x", "y", "z", "a", "c",
		"é", "É", "té", "123", " ", " ", "\n", "\n", "\r\n", "func ", "Handler(", "kelvin", "\u212Aelvin",
		"abc", "ABC", "café", "strasse", "STRAße", "ǅ", "ǆ", "Ǆ", "x", "Y", "α", "Ω", "ω", "日本", "7"}
	rng := rand.New(rand.NewSource(1))
	for _, p := range patterns {
		m, err := newMatcher(p)
		if err != nil {
			t.Fatal(err)
		}
		plain := regexp.MustCompile(p)
		for range 200 {
			var sb strings.Builder
			for range rng.Intn(60) {
				sb.WriteString(alphabet[rng.Intn(len(alphabet))])
			}
			buf := []byte(sb.String())
			var got, want []int
			m.scan(buf, nil, func(start, end, n int) bool { got = append(got, n); return true })
			for i, line := range strings.Split(strings.TrimSuffix(string(buf), "\n"), "\n") {
				if len(buf) > 0 && plain.MatchString(strings.TrimSuffix(line, "\r")) {
					want = append(want, i+1)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("pattern %q on %q: got lines %v, want %v", p, buf, got, want)
			}
		}
	}
}

func TestMatcherPrefilterChoice(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern string
		lits    []string
		fold    bool
		pure    bool
	}{
		{`Handler`, []string{"Handler"}, false, true},
		{`func \w+Handler\(`, []string{"Handler("}, false, false},
		{`TODO|FIXME`, []string{"TODO", "FIXME"}, false, false},
		{`(?i)todo`, []string{"todo"}, true, true},
		{`(?i)(Read|Write)r`, []string{"read", "write"}, true, false},
		{`\b[a-z]{24,}\b`, nil, false, false},
		// Folded non-ASCII runes are spelt out, ASCII ones lowered.
		{`(?i)été`, []string{"ÉtÉ", "Été", "étÉ", "été"}, true, true},
		{`(?i)é`, []string{"É", "é"}, true, true},
		{`(?i)abc|é`, []string{"abc", "É", "é"}, true, false},
		{`(?i)STRASSE|ǅ`, []string{"strasse", "Ǆ", "ǅ", "ǆ"}, true, false},
		// Too many spellings: the longest window with at most four.
		{`(?i)ÉÉÉÉ`, []string{"ÉÉ", "Éé", "éÉ", "éé"}, true, false},
		{`(?i)caféÉÉÉ`, []string{"cafÉÉ", "cafÉé", "caféÉ", "caféé"}, true, false},
		{`(?i)Ünïcödé`, []string{"nÏcÖd", "nÏcöd", "nïcÖd", "nïcöd"}, true, false},
		{`a\nb`, []string{"a\nb"}, false, false},
	}
	for _, c := range cases {
		m, err := newMatcher(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		var lits []string
		for _, l := range m.lits {
			lits = append(lits, string(l))
		}
		if !reflect.DeepEqual(lits, c.lits) || m.fold != c.fold || m.pure != c.pure {
			t.Errorf("%s: lits %q fold %v pure %v", c.pattern, lits, m.fold, m.pure)
		}
	}
}

func TestASCIILowerMatchesByteLoop(t *testing.T) {
	t.Parallel()
	buf := make([]byte, 1000)
	for i := range buf {
		buf[i] = byte(i * 7 % 256)
	}
	for n := range 40 {
		got := asciiLower(nil, buf[n:n*20])
		for i, c := range buf[n : n*20] {
			want := c
			if 'A' <= c && c <= 'Z' {
				want = c + 32
			}
			if got[i] != want {
				t.Fatalf("byte %#x lowered to %#x", c, got[i])
			}
		}
	}
}

// TestSearchContentSkipsSecrets: credential files are never searched (and
// counted as skipped), credential directories never entered, and naming
// one is refused.
// README.md "Modes and permissions": search_content never reads a secret file.
func TestSearchContentSkipsSecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	for _, p := range []string{".env", "config/prod.env", "id_rsa", "certs/server.pem", "home/.ssh/config", ".env.example", "ok.txt"} {
		e.put(p, "TOKEN=sk-abcdef\n")
	}
	res := decode[contentResult](t, e.callOK(`{"action":"search_content","pattern":"TOKEN"}`).Content)
	var files []string
	for _, m := range res.Matches {
		files = append(files, m.File)
	}
	if !reflect.DeepEqual(files, []string{".env.example", "ok.txt"}) || res.Skipped == nil || res.Skipped.Secret != 5 {
		t.Errorf("secrets searched: %v, skipped %+v", files, res.Skipped)
	}
	for _, p := range []string{".env", "home/.ssh"} {
		mustContain(t, e.callErr(js(map[string]any{"action": "search_content", "pattern": "TOKEN", "path": p})),
			"cannot expose credential files: "+e.path(p)+" is ")
	}
}

// TestSearchContentFitsItsBudget: a result never passes the call's budget;
// it shows the first matches in path order and says how to get the rest.
func TestSearchContentFitsItsBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	for i := range 50 {
		e.put(fmt.Sprintf("f%02d.txt", i), strings.Repeat("needle in a haystack line\n", 20))
	}
	e.tc.Budget = 3000
	out := e.callOK(`{"action":"search_content","pattern":"needle"}`).Content
	res := decode[contentResult](t, out)
	if n := len([]rune(out)); n > 3000 || len(res.Matches) == 0 || len(res.Matches) >= 100 || !res.Truncated ||
		res.NextOffset != len(res.Matches) || res.TotalMatches != 1000 || !strings.Contains(res.Note, "result budget") ||
		res.Matches[0].File != "f00.txt" {
		t.Fatalf("%d chars, %d matches, total %d, note %q", n, len(res.Matches), res.TotalMatches, res.Note)
	}
	// One match whose context alone is over the budget keeps the match with less context.
	e.tc.Budget = 1500
	res = decode[contentResult](t, e.callOK(`{"action":"search_content","pattern":"needle","path":"f00.txt","context_lines":1000}`).Content)
	if len(res.Matches) != 1 {
		t.Fatalf("huge context: %d matches", len(res.Matches))
	}
}

// TestSearchContentByteOrderMarks: as rg, a UTF-8 mark is not text (`^`
// matches the first line, the line shown has no mark) and UTF-16 with a mark
// is decoded, not skipped as binary (CONTRACT.md §6.2).
func TestSearchContentByteOrderMarks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	le := []byte{0xFF, 0xFE}
	be := []byte{0xFE, 0xFF}
	for _, r := range "Alpha one\nbeta\n" {
		le = append(le, byte(r), 0)
		be = append(be, 0, byte(r))
	}
	for name, data := range map[string][]byte{"bom8.txt": []byte("\xEF\xBB\xBFAlpha one\nbeta\n"), "le.txt": le, "be.txt": be} {
		if err := os.WriteFile(e.path(name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		res := decode[contentResult](t, e.callOK(`{"action":"search_content","pattern":"^Alpha","path":"`+name+`"}`).Content)
		if len(res.Matches) != 1 || res.Matches[0].Line != "Alpha one" || res.Matches[0].LineNumber != 1 {
			t.Errorf("%s: %+v, want line 1 \"Alpha one\"", name, res.Matches)
		}
		if rg, err := exec.LookPath("rg"); err == nil {
			out, _ := exec.Command(rg, "-c", "^Alpha", e.path(name)).Output()
			if strings.TrimSpace(string(out)) != "1" {
				t.Errorf("%s: rg counts %q, the tool 1", name, out)
			}
		}
	}
}

// TestSearchContentRgGlobForms: `tests/` excludes directories named tests
// at any depth (not a file of that name), `/src` only the top-level src, as
// rg -g '!…' reads them (CONTRACT.md §6.2).
func TestSearchContentRgGlobForms(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	for _, p := range []string{"tests/a.txt", "x/tests/b.txt", "x/tests.txt", "src/c.txt", "x/src/d.txt", "top.txt"} {
		e.put(p, "Alpha\n")
	}
	files := func(exclude string) []string {
		res := decode[contentResult](t, e.callOK(`{"action":"search_content","pattern":"Alpha","exclude":["`+exclude+`"]}`).Content)
		var out []string
		for _, m := range res.Matches {
			out = append(out, m.File)
		}
		sort.Strings(out)
		return out
	}
	for exclude, want := range map[string][]string{
		"tests/": {"src/c.txt", "top.txt", "x/src/d.txt", "x/tests.txt"},
		"/src":   {"tests/a.txt", "top.txt", "x/src/d.txt", "x/tests.txt", "x/tests/b.txt"},
	} {
		got := files(exclude)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("exclude %s: %v, want %v", exclude, got, want)
		}
		if rg, err := exec.LookPath("rg"); err == nil {
			cmd := exec.Command(rg, "-l", "-g", "!"+exclude, "Alpha")
			cmd.Dir = e.ws
			out, _ := cmd.Output()
			lines := strings.Fields(string(out))
			sort.Strings(lines)
			if !reflect.DeepEqual(lines, want) {
				t.Errorf("exclude %s: rg lists %v, the test wants %v", exclude, lines, want)
			}
		}
	}
}
