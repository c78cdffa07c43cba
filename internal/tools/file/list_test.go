package file

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/tools"
)

func TestList(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.put(".gitignore", "*.log\nbuild/\n!keep.log\n")
	e.put("a.txt", "")
	e.put("debug.log", "")
	e.put("keep.log", "")
	e.put("build/out.bin", "")
	e.put("src/main.go", "")
	e.put("src/.gitignore", "gen/\n")
	e.put("src/gen/x.go", "")
	e.put("src/pkg/deep/d.go", "")
	e.put(".git/HEAD", "ref: refs/heads/main\n")
	type E = listEntry
	cases := []struct {
		in   string
		want []E
	}{
		{`{"action":"list"}`, []E{{".git", true}, {".gitignore", false}, {"a.txt", false}, {"keep.log", false}, {"src", true}}},
		{`{"action":"list","path":"src"}`, []E{{".gitignore", false}, {"main.go", false}, {"pkg", true}}},
		{`{"action":"list","depth":2}`, []E{{".git", true}, {".gitignore", false}, {"a.txt", false}, {"keep.log", false},
			{"src", true}, {"src/.gitignore", false}, {"src/main.go", false}, {"src/pkg", true}}},
		{`{"action":"list","depth":99}`, []E{{".git", true}, {".gitignore", false}, {"a.txt", false}, {"keep.log", false},
			{"src", true}, {"src/.gitignore", false}, {"src/main.go", false}, {"src/pkg", true}, {"src/pkg/deep", true},
			{"src/pkg/deep/d.go", false}}},
		// Naming an ignored directory lists it.
		{`{"action":"list","path":"build"}`, []E{{"out.bin", false}}},
	}
	for _, c := range cases {
		got := decode[[]listEntry](t, e.callOK(c.in).Content)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.in, got, c.want)
		}
	}
	mustContain(t, e.callErr(`{"action":"list","path":"a.txt"}`), "Failed to list "+e.path("a.txt")+": not a directory.")
	mustContain(t, e.callErr(`{"action":"list","path":"nope"}`), "Failed to list "+e.path("nope")+": no such file or directory")
	mustContain(t, e.callErr(`{"action":"list","depth":0}`), "depth must be between 1 and 5")
}

func TestListOver500Entries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	for i := range 520 {
		e.put(fmt.Sprintf("f%04d", i), "")
	}
	got := decode[listTruncated](t, e.callOK(`{"action":"list"}`).Content)
	if got.Listed != 500 || got.Total != 520 || !got.Trunc || len(got.Entries) != 500 || got.Entries[0].Name != "f0000" {
		t.Errorf("truncated listing: listed=%d total=%d truncated=%v first=%v", got.Listed, got.Total, got.Trunc, got.Entries[0])
	}
}

func TestSearchNameScoring(t *testing.T) {
	t.Parallel()
	cases := []struct {
		q, path, name string
		want          float64
		ok            bool
	}{
		{"main.go", "src/main.go", "main.go", 1.0, true},
		{"src/main.go", "src/main.go", "main.go", 0.98, true},
		{"main", "src/main.go", "main.go", 0.9 + 4.0/7*0.08, true},
		{"src/ma", "src/main.go", "main.go", 0.85 + 6.0/11*0.08, true},
		{"ain", "src/main.go", "main.go", 0.75 + 3.0/7*0.08, true},
		{"c/m", "src/main.go", "main.go", 0.70 + 3.0/11*0.08, true},
		// "mgo" in "main.go": positions 0,5,6 → span 7, density 3/7, coverage 3/7.
		{"mgo", "src/main.go", "main.go", 0.6 + 0.4*(0.7*3.0/7+0.3*3.0/7), true},
		// "smn" only as a subsequence of the path: s(0) m(4) n(7) → span 8.
		{"smn", "src/main.go", "main.go", 0.55 + 0.4*(0.7*3.0/8+0.3*3.0/11), true},
		{"zzz", "src/main.go", "main.go", 0, false},
	}
	for _, c := range cases {
		got, ok := nameScore(c.q, c.path, c.name)
		if ok != c.ok || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("nameScore(%q, %q, %q) = %v, %v; want %v, %v", c.q, c.path, c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestSearchName(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.put(".gitignore", "ignored/\n")
	e.put("main.go", "")
	e.put("src/main_test.go", "")
	e.put("src/domain.go", "")
	e.put("README.md", "")
	e.put("ignored/main.go", "")
	e.put("target/main.go", "")
	e.put("deps/Cargo.lock", "")
	e.put(".hidden/main.txt", "")
	paths := func(in string) []string {
		var out []string
		for _, m := range names(t, e.callOK(in).Content).Matches {
			out = append(out, m.Path)
		}
		return out
	}
	cases := []struct {
		in   string
		want []string
	}{
		{`{"action":"search_name","query":"main"}`, []string{"main.go", ".hidden/main.txt", "src/main_test.go", "src/domain.go"}},
		{`{"action":"search_name","query":"MAIN","extensions":[".GO"]}`, []string{"main.go", "src/main_test.go", "src/domain.go"}},
		{`{"action":"search_name","query":"main","limit":1}`, []string{"main.go"}},
		{`{"action":"search_name","query":"main","path":"src"}`, []string{"main_test.go", "domain.go"}},
		{`{"action":"search_name","query":"lock"}`, nil},
		// An explicit exclude replaces the defaults, so target/ is searched.
		{`{"action":"search_name","query":"main.go","exclude":["src/**"]}`, []string{"main.go", "target/main.go"}},
	}
	for _, c := range cases {
		if got := paths(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.in, got, c.want)
		}
	}
	// What the defaults skipped is reported; an explicit exclude has no report.
	if r := names(t, e.callOK(`{"action":"search_name","query":"lock"}`).Content); r.Defaults == nil ||
		!reflect.DeepEqual(r.Defaults.Skipped, []string{"deps/Cargo.lock", "target/"}) || r.Defaults.Count != 2 {
		t.Errorf("defaults report: %+v", r.Defaults)
	}
	if r := names(t, e.callOK(`{"action":"search_name","query":"main","exclude":[]}`).Content); r.Defaults != nil || r.TotalMatches != 5 {
		t.Errorf("exclude: [] searches everything: %+v", r)
	}
	if r := names(t, e.callOK(`{"action":"search_name","query":"main","limit":1}`).Content); !r.Truncated || r.TotalMatches != 4 ||
		!strings.Contains(r.Note, "Showing the 1 best of 4 matches") {
		t.Errorf("limit below the matches: %+v", r)
	}
	mustContain(t, e.callErr(`{"action":"search_name","query":"  "}`), "query cannot be empty")
	mustContain(t, e.callErr(`{"action":"search_name","query":"x","path":"nope"}`), "Base path does not exist: "+e.path("nope"))
	mustContain(t, e.callErr(`{"action":"search_name","query":"x","exclude":["[bad"]}`), "invalid glob pattern `[bad` in `exclude`")
}

// names decodes either form of a search_name result.
func names(t *testing.T, content string) nameResult {
	t.Helper()
	var list []nameMatch
	if err := json.Unmarshal([]byte(content), &list); err == nil {
		return nameResult{Matches: list, TotalMatches: len(list)}
	}
	return decode[nameResult](t, content)
}

func TestWalksDoNotFollowSymlinks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.put("real/needle.txt", "NEEDLE\n")
	if err := os.Symlink(e.ws, e.path("real/loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(e.path("real/needle.txt"), e.path("alias.txt")); err != nil {
		t.Fatal(err)
	}
	got := decode[contentResult](t, e.callOK(`{"action":"search_content","pattern":"NEEDLE"}`).Content)
	if got.TotalMatches != 1 || got.FilesSearched != 1 || got.Matches[0].File != "real/needle.txt" {
		t.Errorf("search_content through symlinks: %+v", got)
	}
	if found := names(t, e.callOK(`{"action":"search_name","query":"needle"}`).Content); len(found.Matches) != 1 {
		t.Errorf("search_name through symlinks: %+v", found)
	}
}

func TestWalksStopOnCancelAndDeadline(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.put("a/b.txt", "x\n")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, c := range []struct {
		in, cancelled string
	}{
		{`{"action":"list","depth":3}`, "list cancelled before completion"},
		{`{"action":"search_name","query":"b"}`, "search_name cancelled before completion"},
		{`{"action":"search_content","pattern":"x"}`, "search cancelled before completion"},
	} {
		_, err := e.tool.Execute(cancelled, e.tc, json.RawMessage(c.in))
		if te := tools.AsError(err); err == nil || te.Kind != tools.KindCancelled || te.Msg != c.cancelled {
			t.Errorf("%s cancelled: %v", c.in, err)
		}
		_, err = e.tool.Execute(expired, e.tc, json.RawMessage(c.in))
		if got := errText(err); got != "Tool 'File' timed out after 30s. Try a narrower scope or a longer timeout." {
			t.Errorf("%s past deadline: %q", c.in, got)
		}
	}
}
