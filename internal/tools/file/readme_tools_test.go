package file

import (
	"slices"
	"testing"
)

// README.md "Tools": each search has its own default excludes — search_content
// skips directories named node_modules, .git, target, dist, build,
// __pycache__, .venv and venv and files *.min.js and *.min.css; search_name
// skips node_modules, .git, target, dist, build and DerivedData and files
// *.lock and *.plist — and `exclude: []` turns them off.
func TestREADMEDefaultExcludesOfEachSearch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	for _, p := range []string{"node_modules/x.txt", "target/x.txt", "dist/x.txt", "build/x.txt", "a/__pycache__/x.txt",
		"a/.venv/x.txt", "a/venv/x.txt", "web/x.min.js", "web/x.min.css", "ios/DerivedData/x.txt", "deps/x.lock",
		"ios/x.plist", "ok/x.txt"} {
		e.put(p, "needle\n")
	}
	content := func(in string) []string {
		var out []string
		for _, m := range decode[contentResult](t, e.callOK(in).Content).Matches {
			out = append(out, m.File)
		}
		return out
	}
	name := func(in string) []string {
		var out []string
		for _, m := range names(t, e.callOK(in).Content).Matches {
			out = append(out, m.Path)
		}
		slices.Sort(out)
		return out
	}
	if got := content(`{"action":"search_content","pattern":"needle"}`); !slices.Equal(got,
		[]string{"deps/x.lock", "ios/DerivedData/x.txt", "ios/x.plist", "ok/x.txt"}) {
		t.Errorf("search_content defaults kept %v", got)
	}
	if got := content(`{"action":"search_content","pattern":"needle","exclude":[]}`); len(got) != 13 {
		t.Errorf("search_content exclude: [] found %v", got)
	}
	if got := name(`{"action":"search_name","query":"x"}`); !slices.Equal(got,
		[]string{"a/.venv/x.txt", "a/__pycache__/x.txt", "a/venv/x.txt", "ok/x.txt", "web/x.min.css", "web/x.min.js"}) {
		t.Errorf("search_name defaults kept %v", got)
	}
	if got := name(`{"action":"search_name","query":"x","exclude":[]}`); len(got) != 13 {
		t.Errorf("search_name exclude: [] found %v", got)
	}
}
