package git

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
	"github.com/codewhale/codewhale/internal/tools"
)

// CONTRACT.md §6.3: log's `rev` is read as `git log <rev> -- <scope>`, on the
// go-git backend too: with a range and a path, history simplification
// compares a merge with the parents git calls relevant (those the range
// keeps, and its bottoms: A of A..B, the merge bases of A...B), so a merge
// that matches only an excluded parent is still shown, and one that matches
// a bottom is not. These ranges over go-isatty's history disagreed with git
// before.
func TestContract63LogRangeWithAPathSimplifiesAsGit(t *testing.T) {
	t.Parallel()
	src, err := filepath.Abs(foreignBundle)
	if err != nil {
		t.Fatal(err)
	}
	d := newDiffer(t, gitfixture.Clone(t, src))
	d.context = "ranges"
	for _, c := range [][2]string{
		{"origin/master...origin/cygwin-msys2", "isatty_bsd.go"},
		{"origin/cygwin-msys2..v0.0.4", "README.md"},
		{"v0.0.1...origin/cygwin-msys2", "isatty_windows.go"},
		{"origin/cygwin-msys2...v0.0.8", ".travis.yml"},
		{"v0.0.10..origin/cygwin-msys2", "isatty_linux.go"},
	} {
		d.check(diffCase{"log", map[string]any{"action": "log", "rev": c[0], "path": c[1]}, logRef("--max-count=20", c[0], "--", c[1])})
	}
	d.report("go-isatty", 0)
	if n := d.tally.counts["log/go-git"]; n == nil || n[0] != 5 {
		t.Errorf("the go-git backend agreed with git on %v of 5 ranges", d.tally.lines())
	}
}

// CONTRACT.md §6.3: a log `rev` naming a tree or a blob is a revision git
// knows: git log walks nothing and prints nothing, on either backend; a
// `rev:path` that names nothing fails as git fails, with "bad revision" when
// a path is given.
func TestContract63LogOfATreeOrBlobIsEmpty(t *testing.T) {
	t.Parallel()
	d := newDiffer(t, historyFixture(t).Repo)
	d.context = "non-commits"
	for _, rev := range []string{"HEAD^{tree}", "HEAD:", "HEAD:demo.go", ":demo.go", "HEAD:nope", ":nope"} {
		d.check(diffCase{"log", map[string]any{"action": "log", "rev": rev}, logRef("--max-count=20", rev)})
		d.check(diffCase{"log", map[string]any{"action": "log", "rev": rev, "path": "demo.go"},
			logRef("--max-count=20", rev, "--", "demo.go")})
	}
	d.report("fixture", 0)
	if n := d.tally.counts["log/go-git"]; n == nil || n[0] != 12 {
		t.Errorf("the go-git backend agreed with git on %v of 12 calls", d.tally.lines())
	}
}

// CONTRACT.md §6.3: `since` and `until` mean what git makes of them. git reads
// `@<n>` as seconds since 1970 only from nine digits on, so the go-git backend
// evaluates only those and leaves `@0` to the binary (it is not the epoch).
func TestContract63NativeDatesReadAtNumbersAsGit(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	for s, want := range map[string]bool{"@1700007400": true, "@100000000": true, "@99999999": false, "@0": false,
		"@-5": false, "@+1700007400": false} {
		got, ok := parseApproxDate(s, now)
		if ok != want {
			t.Errorf("parseApproxDate(%q) = %d, %v; want evaluated natively: %v", s, got, ok, want)
		}
	}
	d := newDiffer(t, historyFixture(t).Repo)
	d.context = "dates"
	for _, s := range []string{"@0", "@1700007400"} {
		for _, k := range []string{"since", "until"} {
			d.check(diffCase{"log", map[string]any{"action": "log", k: s}, logRef("--max-count=20", "--"+k+"="+s)})
		}
	}
	d.report("fixture", 0)
}

// CONTRACT.md §6.3: content over the budget ends with the exact note
// `[output truncated to <n> characters; <k> characters omitted]`, where n
// counts the characters kept and n+k those git printed.
func TestContract63TruncationNoteCounts(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	var big strings.Builder
	for i := range 2000 {
		big.WriteString("line " + strconv.Itoa(i) + " of a large file\n")
	}
	f.Write("big.txt", big.String())
	f.Run("add", "big.txt")
	want := f.Run("-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff", "--unified=3", "--cached")
	note := regexp.MustCompile(`\n\n\[output truncated to (\d+) characters; (\d+) characters omitted\] `)
	for name, tool := range backends() {
		res, err := tool.Execute(context.Background(), &tools.Context{Workspace: f.Dir, Budget: 2000},
			json.RawMessage(`{"action":"diff","cached":true}`))
		if name == "go-git" && err == nil && strings.Contains(res.Content, nativeRefusal) {
			continue
		}
		if err != nil || !res.Success {
			t.Fatalf("[%s] %v %s", name, err, res.Content)
		}
		loc := note.FindStringSubmatchIndex(res.Content)
		if loc == nil {
			t.Fatalf("[%s] no exact truncation note in %q", name, res.Content[max(0, len(res.Content)-300):])
		}
		kept := res.Content[:loc[0]]
		n, _ := strconv.Atoi(res.Content[loc[2]:loc[3]])
		k, _ := strconv.Atoi(res.Content[loc[4]:loc[5]])
		if runes := len([]rune(kept)); n != runes || n+k != len([]rune(want)) {
			t.Errorf("[%s] note says %d kept + %d omitted; kept %d of git's %d", name, n, k, runes, len([]rune(want)))
		}
	}
}
