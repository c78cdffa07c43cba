package file

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/tools"
)

// hit is one matching line: the way File and rg are compared.
type hit struct {
	File string
	Line int
}

// rgBase is rg set up the way search_content reads a tree: ignore files
// honoured with or without a repository (.gitignore, .ignore, .rgignore,
// info/exclude, the global excludes), hidden files searched, .git never
// entered, files over 10 MiB skipped, CRLF line ends (search_content's
// dialect, dialect.go), results in path order.
var rgBase = []string{"--no-require-git", "--hidden", "--no-config", "-g", "!.git", "--max-filesize", "10M",
	"--crlf", "--sort", "path", "-n", "--no-heading", "--with-filename", "-0"}

// rgHits runs rg in dir and returns its matching lines in order.
func rgHits(t testing.TB, dir string, args ...string) []hit {
	t.Helper()
	cmd := exec.Command("rg", append(slices.Clone(rgBase), args...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("rg %v: %v\n%s", args, err, out)
	}
	var hits []hit
	for len(out) > 0 {
		name, rest, _ := bytes.Cut(out, []byte{0})
		num, rest, _ := bytes.Cut(rest, []byte{':'})
		_, rest, _ = bytes.Cut(rest, []byte{'\n'})
		n, err := strconv.Atoi(string(num))
		if err != nil {
			t.Fatalf("rg output %q: %v", out[:min(len(out), 200)], err)
		}
		hits = append(hits, hit{strings.TrimPrefix(string(name), "./"), n})
		out = rest
	}
	return hits
}

// searchHits runs search_content with no result limits and returns its
// matching lines in order with its reported total.
func searchHits(t testing.TB, e *env, args map[string]any) ([]hit, contentResult) {
	t.Helper()
	in := map[string]any{"action": "search_content", "max_results": 10_000_000, "context_lines": 0, "exclude": []string{}}
	for k, v := range args {
		in[k] = v
	}
	res, err := e.call(js(in))
	if err != nil || !res.Success {
		t.Fatalf("search_content %v: %v %s", args, err, res.Content)
	}
	r := decode[contentResult](e.t, res.Content)
	var hits []hit
	for _, m := range r.Matches {
		hits = append(hits, hit{m.File, m.LineNumber})
	}
	return hits, r
}

func needRG(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("rg"); err != nil {
		e2e.Missing(t, "rg is not installed (apt-get install -y ripgrep)")
	}
}

// rgTree has what search_content must read as rg does: nested .gitignore,
// .ignore and .rgignore with negations, hidden files and directories,
// non-ASCII text and names (with the case-folding traps ſ and the Kelvin
// sign), CRLF, binary and Latin-1 files, and files named like the default
// excludes.
var rgTree = map[string]string{
	".gitignore":          "*.gen\nout/\n!keep.gen\n",
	".ignore":             "scratch/\n",
	"src/.gitignore":      "*.tmp\n",
	"src/.rgignore":       "!wanted.tmp\n",
	"src/a.go":            "package a\n\nfunc Alpha() {}\nfunc beta() {}\n// ABC upper\n",
	"src/b.txt":           "abc lower\ncafé\nCAFÉ\nStraße STRASSE strasse\nǅ ǆ Ǆ\n\u212Aelvin kelvin\n\u017Fun sun\n",
	"src/crlf.txt":        "first line\r\nends with foo\r\n\r\nlast foo\r\n",
	"src/wanted.tmp":      "Alpha wanted\n",
	"src/dropped.tmp":     "Alpha dropped\n",
	"src/x.gen":           "Alpha generated\n",
	"keep.gen":            "Alpha kept\n",
	"out/o.txt":           "Alpha out\n",
	"scratch/s.txt":       "Alpha scratch\n",
	".hidden/h.go":        "// Alpha hidden 123\n",
	".env.example":        "ALPHA=1\n",
	"bin.dat":             "Alpha\x00\x01binary\n",
	"latin1.txt":          "Alpha caf\xe9 na\xefve\n",
	"build":               "a file named build: Alpha\n",
	"dist/d.js":           "Alpha in dist\n",
	"docs/naïve café.md":  "word wörd wordé éword\n\tindented\n   spaced\n",
	"docs/日本語.txt":        "日本語 テキスト 123 ４５６\n",
	"deep/a/b/c/d.txt":    "Alpha deep\n\n\nend\n",
	"deep/a-b/e.txt":      "Alpha sorts between\n",
	"deep/a.txt":          "Alpha sorts after a/\n",
	"empty.txt":           "",
	"no-final-newline.md": "one\ntwo Alpha",
}

// rgKnownDiffs are the runs where search_content's dialect differs from
// rg's on purpose, with the lines that differ: bytes that are not UTF-8
// read as U+FFFD here, where rg's classes match nothing there.
var rgKnownDiffs = map[string][]hit{
	`[^a-z ]+ -i`: {{"latin1.txt", 1}},
}

// rgPatterns are compared on rgTree, each with and without
// case_insensitive.
var rgPatterns = []string{
	`Alpha`, `abc|é`, `STRASSE|ǅ`, `é|abc`, `(?i:k)elvin`, `sun`, `kelvin`, `caf`, `foo$`, `^last`, `^$`, `\w+é`,
	`\bword\b`, `\d+`, `\s+spaced`, `^\s`, `[[:upper:]]{3}`, `\W\w`, `[^a-z ]+`, `日本`, `\p{Han}+`, `é`, `.`, `line$`,
	`a.c`, `x*`, `Alpha|zzz|deep`, `(?:a|b)(?:c|\.)`,
}

// README.md "Tools": search_content reads a tree and a regex as rg --hidden --no-require-git --crlf --sort path does.
func TestSearchContentAgreesWithRipgrep(t *testing.T) {
	needRG(t)
	t.Parallel()
	e := newEnv(t, Options{})
	e.tc.Budget = 1 << 30
	for p, c := range rgTree {
		e.put(p, c)
	}
	agree, total := 0, 0
	for _, p := range rgPatterns {
		for _, ci := range []bool{false, true} {
			total++
			var rgArgs []string
			if ci {
				rgArgs = append(rgArgs, "-i")
			}
			want := rgHits(t, e.ws, append(rgArgs, "-e", p, ".")...)
			got, res := searchHits(t, e, map[string]any{"pattern": p, "case_insensitive": ci})
			key := strings.TrimSpace(p + " " + strings.Join(rgArgs, " "))
			if known, ok := rgKnownDiffs[key]; ok {
				if diff := symmetricDiff(got, want); !slices.Equal(diff, known) {
					t.Errorf("pattern %q case_insensitive=%v: differs from rg in %v, documented %v", p, ci, diff, known)
				}
				continue
			}
			if !slices.Equal(got, want) || res.TotalMatches != len(want) {
				t.Errorf("pattern %q case_insensitive=%v:\n got %v (total %d)\nrg  %v", p, ci, got, res.TotalMatches, want)
				continue
			}
			agree++
		}
	}
	t.Logf("search_content agrees with rg on %d of %d pattern runs (%d documented differences)", agree, total, len(rgKnownDiffs))
	if agree+len(rgKnownDiffs) != total {
		t.Errorf("%d runs disagree", total-agree-len(rgKnownDiffs))
	}
}

// symmetricDiff lists the hits in exactly one of a and b, sorted.
func symmetricDiff(a, b []hit) []hit {
	var out []hit
	for _, h := range a {
		if !slices.Contains(b, h) {
			out = append(out, h)
		}
	}
	for _, h := range b {
		if !slices.Contains(a, h) {
			out = append(out, h)
		}
	}
	slices.SortFunc(out, func(x, y hit) int { return strings.Compare(fmt.Sprint(x), fmt.Sprint(y)) })
	return out
}

// TestSearchContentGorootAgreesWithRipgrep compares whole-tree searches of
// $(go env GOROOT)/src, match for match and in order.
func TestSearchContentGorootAgreesWithRipgrep(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: searches all of GOROOT against rg; make test runs it (go test without -short)")
	}
	needRG(t)
	t.Parallel()
	src := gorootSrc(t)
	e := &env{t: t, ws: src, tc: &tools.Context{Workspace: src, Budget: 1 << 30}, tool: New(Options{})}
	e.reg = tools.NewRegistry()
	e.reg.Register(e.tool)
	for _, c := range []struct {
		pattern string
		ci      bool
	}{
		{`STRASSE|ǅ`, true}, {`func \w+Handler\(`, false}, {`TODO\(\w+\)`, false}, {`(?i)unicode\.SimpleFold`, false},
		{`^\s*//go:build ignore$`, false}, {`naïve|café|Ünïcödé`, true}, {`\p{Greek}+`, false},
	} {
		var rgArgs []string
		if c.ci {
			rgArgs = append(rgArgs, "-i")
		}
		want := withoutSecrets(e, rgHits(t, src, append(rgArgs, "-e", c.pattern, ".")...))
		got, res := searchHits(t, e, map[string]any{"pattern": c.pattern, "case_insensitive": c.ci})
		if !slices.Equal(got, want) || res.TotalMatches != len(want) {
			t.Errorf("GOROOT %q ci=%v: got %d matches (total %d), rg %d; first difference %s",
				c.pattern, c.ci, len(got), res.TotalMatches, len(want), firstDiff(got, want))
		}
	}
}

func firstDiff(got, want []hit) string {
	for i := range max(len(got), len(want)) {
		var g, w hit
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("at %d: got %v, rg %v", i, g, w)
		}
	}
	return "none"
}

func gorootSrc(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		e2e.Missing(t, "go env GOROOT: "+err.Error())
	}
	return tools.Canonical(filepath.Join(strings.TrimSpace(string(out)), "src"))
}

// TestSearchContentIsRepeatable runs the same truncated search four times:
// the matches are the first ones in rg's path order every time, and the
// total is rg's count.
func TestSearchContentIsRepeatable(t *testing.T) {
	needRG(t)
	t.Parallel()
	e := newEnv(t, Options{})
	for i := range 40 {
		e.put(fmt.Sprintf("d%d/f%02d.txt", i%7, i), strings.Repeat("needle\nhay\n", 1+i%5))
	}
	want := rgHits(t, e.ws, "-e", "needle", ".")
	for range 4 {
		res := decode[contentResult](t, e.callOK(`{"action":"search_content","pattern":"needle","max_results":9,"exclude":[]}`).Content)
		var got []hit
		for _, m := range res.Matches {
			got = append(got, hit{m.File, m.LineNumber})
		}
		if !slices.Equal(got, want[:9]) || res.TotalMatches != len(want) || res.TotalLowerBound || !res.Truncated || res.NextOffset != 9 {
			t.Fatalf("got %v total %d, want %v total %d", got, res.TotalMatches, want[:9], len(want))
		}
	}
	res := decode[contentResult](t, e.callOK(`{"action":"search_content","pattern":"needle","max_results":9,"offset":9,"exclude":[]}`).Content)
	if res.Matches[0].File != want[9].File || res.Matches[0].LineNumber != want[9].Line {
		t.Fatalf("offset 9 starts at %+v, rg's 10th is %v", res.Matches[0], want[9])
	}
}

// TestDefaultExcludes: directory rules skip directories of that name at any
// depth whatever the search root, never a file of that name nor a
// directory holding tracked files, and the result says what they skipped.
// README.md "Tools": the default excludes never skip a file of that name or a directory holding tracked files, and the result lists what they skipped.
func TestDefaultExcludes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		e2e.Missing(t, "git is not installed")
	}
	t.Parallel()
	e := newEnv(t, Options{})
	for _, p := range []string{"build", "dist", "target", "src/build/out.txt", "src/x/dist/d.txt", "go/build/build.go",
		"node_modules/m.js", "src/gen/g.txt", "src/ok.txt", "web/app.min.js"} {
		e.put(p, "needle\n")
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", e.ws, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "go/build/build.go")
	files := func(in string) ([]string, contentResult) {
		res := decode[contentResult](t, e.callOK(in).Content)
		var out []string
		for _, m := range res.Matches {
			out = append(out, m.File)
		}
		return out, res
	}
	got, res := files(`{"action":"search_content","pattern":"needle"}`)
	want := []string{"build", "dist", "go/build/build.go", "src/gen/g.txt", "src/ok.txt", "target"}
	if !slices.Equal(got, want) {
		t.Errorf("defaults: got %v, want %v", got, want)
	}
	if res.Defaults == nil || res.Defaults.Count != 4 ||
		!slices.Equal(res.Defaults.Skipped, []string{"node_modules/", "src/build/", "src/x/dist/", "web/app.min.js"}) {
		t.Errorf("defaults report: %+v", res.Defaults)
	}
	if got, _ := files(`{"action":"search_content","pattern":"needle","path":"src"}`); !slices.Equal(got, []string{"src/gen/g.txt", "src/ok.txt"}) {
		t.Errorf("defaults from src: %v", got)
	}
	// A call's own globs are relative to the workspace, whatever the path.
	if got, _ := files(`{"action":"search_content","pattern":"needle","path":"src","exclude":["src/gen/**"]}`); !slices.Equal(got,
		[]string{"src/build/out.txt", "src/ok.txt", "src/x/dist/d.txt"}) {
		t.Errorf("exclude from src: %v", got)
	}
	if got, _ := files(`{"action":"search_content","pattern":"needle","exclude":["build/**"]}`); !slices.Contains(got, "build") {
		t.Errorf("build/** dropped the file named build: %v", got)
	}
}
