package file

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// newlinePatterns are search_content patterns with whether rg (13) refuses
// them for naming a line break. Go's parser folds `\n|a` into the class
// `[\na]`, which rg allows; rg keeps the alternation and refuses it.
var newlinePatterns = map[string]bool{
	`a\nb`: true, `[\n]`: true, `\x0a`: true, `\x{0A}`: true, `\n?`: true, `(?i)\n`: true, `[\n-\n]`: true,
	`\n|a`: true, `a|\n`: true, `x|\n|yz`: true, `[a]|\n`: true, `[\n]|a`: true, `(?:\n|a)b`: true, `\x0a|a`: true,
	`(a|\n)+`: true, `a|[\n]`: true,
	`[\na]`: false, `[^\n]`: false, `[^a]`: false, `\\n`: false, `[\n[:alpha:]]`: false, `a|b`: false, `\s`: false,
}

// CONTRACT.md §6.2: a search_content pattern that names a line break is
// refused as rg refuses it, never searched for nothing — an alternation
// holding `\n` too, which Go's parser alone would read as a class.
func TestContract62NewlinePatternsRefusedAsRg(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.put("f.txt", "a\nb\nab\n")
	for p, refused := range newlinePatterns {
		_, err := e.call(js(map[string]any{"action": "search_content", "pattern": p, "path": "f.txt"}))
		if got := err != nil && strings.Contains(errText(err), `the literal "\n" is not allowed in a regex`); got != refused {
			t.Errorf("pattern %q: refused %v (%v), want %v", p, got, err, refused)
		}
	}
}

// CONTRACT.md §6.2: the same patterns, asked of rg itself.
func TestContract62NewlinePatternsAgreeWithRg(t *testing.T) {
	t.Parallel()
	rg, err := exec.LookPath("rg")
	if err != nil {
		e2e.Missing(t, "rg is not installed")
	}
	dir := t.TempDir()
	for p, refused := range newlinePatterns {
		out, _ := exec.Command(rg, "-c", "--", p, dir).CombinedOutput()
		if got := strings.Contains(string(out), `the literal '"\n"' is not allowed in a regex`); got != refused {
			t.Errorf("rg %q: refused %v (%s), the table says %v", p, got, out, refused)
		}
	}
}

// CONTRACT.md §6.2: read returns a small file whole — no window asked, at most
// 16384 bytes and 500 lines — and otherwise a numbered window.
func TestContract62ReadSmallFileLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	line := strings.Repeat("x", 31) + "\n" // 32 bytes
	for _, c := range []struct {
		name, content string
		whole         bool
	}{
		{"16384 bytes", strings.Repeat(line, 512)[:16383] + "\n", false}, // 512 lines: over 500
		{"16384 bytes in 500 lines", strings.Repeat(line, 499) + strings.Repeat("y", 16384-499*32-1) + "\n", true},
		{"16385 bytes in 500 lines", strings.Repeat(line, 499) + strings.Repeat("y", 16385-499*32-1) + "\n", false},
		{"500 short lines", strings.Repeat("z\n", 500), true},
		{"501 short lines", strings.Repeat("z\n", 501), false},
	} {
		e.put("f.txt", c.content)
		got := e.callOK(`{"action":"read","path":"f.txt"}`).Content
		if whole := got == c.content; whole != c.whole {
			t.Errorf("%s (%d bytes, %d lines): returned whole %v, want %v", c.name, len(c.content),
				strings.Count(c.content, "\n"), whole, c.whole)
		}
		if !c.whole && !strings.HasPrefix(got, `<file path="f.txt" total_lines=`) {
			t.Errorf("%s: not a window: %.80q", c.name, got)
		}
	}
}

// CONTRACT.md §6.2: list `depth` is at most 5.
func TestContract62ListDepthAtMostFive(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.put("1/2/3/4/5/6/7/f.txt", "")
	got := decode[[]listEntry](t, e.callOK(`{"action":"list","depth":99}`).Content)
	deepest := ""
	for _, en := range got {
		if strings.Count(en.Name, "/") > strings.Count(deepest, "/") {
			deepest = en.Name
		}
	}
	if deepest != "1/2/3/4/5" {
		t.Errorf("depth 99 reached %q, want 1/2/3/4/5: %+v", deepest, got)
	}
}

// CONTRACT.md §6.2: search_name `limit` defaults to 20 and is held to 1..200.
func TestContract62SearchNameLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	for i := range 250 {
		e.put(fmt.Sprintf("d/match%03d.txt", i), "")
	}
	count := func(in string) int {
		text := e.callOK(in).Content
		if strings.HasPrefix(text, "[") {
			return len(decode[[]nameMatch](t, text))
		}
		return len(decode[nameResult](t, text).Matches)
	}
	for in, want := range map[string]int{
		`{"action":"search_name","query":"match"}`:              20,
		`{"action":"search_name","query":"match","limit":1000}`: 200,
		`{"action":"search_name","query":"match","limit":7}`:    7,
	} {
		if got := count(in); got != want {
			t.Errorf("%s: %d matches, want %d", in, got, want)
		}
	}
}

// CONTRACT.md §6.2: search_name counts the secret folders it did not enter
// (`secret_directories_skipped`) and never names what is inside them.
func TestContract62SearchNameCountsSecretDirectories(t *testing.T) {
	t.Parallel()
	e := secretEnv(t)
	text := e.callOK(`{"action":"search_name","query":"config"}`).Content
	res := decode[nameResult](t, text)
	if res.SecretDirs < 2 {
		t.Errorf("secret_directories_skipped %d, want the CodeWhale home and .ssh: %s", res.SecretDirs, text)
	}
	for _, hidden := range []string{"cw-home/config.toml", ".ssh/config", "deepseek.key"} {
		if strings.Contains(text, hidden) {
			t.Errorf("search_name named %s: %s", hidden, text)
		}
	}
}

// CONTRACT.md §6.2: search_content `context_lines` is at most 1000.
func TestContract62ContextLinesAtMost1000(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.put("f.txt", strings.Repeat("filler\n", 1200)+"needle\n")
	res := decode[contentResult](t, e.callOK(`{"action":"search_content","pattern":"needle","context_lines":5000}`).Content)
	if len(res.Matches) != 1 {
		t.Fatalf("matches %+v", res.Matches)
	}
	var before []string
	b, _ := json.Marshal(res.Matches[0].ContextBefore)
	if err := json.Unmarshal(b, &before); err != nil || len(before) != 1000 {
		t.Errorf("context_before holds %d lines (%v), want 1000", len(before), err)
	}
}

// CONTRACT.md §6.2: a leading-whitespace-insensitive edit match whose search
// lines are shifted from the file's by different amounts is refused, nothing
// changed, with the exact opening of the refusal.
func TestContract62EditRefusesUnevenIndentShift(t *testing.T) {
	t.Parallel()
	e := newEnv(t, writable)
	const file = "def f():\n    if x:\n        a = 1\n    return a\n"
	abs := e.put("f.py", file)
	e.callOK(`{"action":"read","path":"f.py"}`)
	got := e.callErr(js(map[string]any{"action": "edit", "path": "f.py",
		"search": "  if x:\n     a = 1\n", "replace": "  if y:\n     a = 2\n"}))
	mustContain(t, got, "The search text matches "+abs+" only when leading whitespace is ignored, and search line 2 is "+
		"indented differently from the file by another amount than its first line")
	if e.get("f.py") != file {
		t.Error("a refused edit changed the file")
	}
}
