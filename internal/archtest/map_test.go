package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// mapped is the set of `internal/…` package paths a document's section
// names in backticks.
var mappedPath = regexp.MustCompile("`(internal/[a-z0-9_/]+)`")

// TestEveryPackageOnTheMap fails on any package under internal/ that the map
// of the parts (docs/ARCHITECTURE.md §1) or AGENTS.md's "Where things are"
// does not name, and on a name there that is no package: a room nobody can
// find is how a second boundary gets drawn beside the first.
func TestEveryPackageOnTheMap(t *testing.T) {
	t.Parallel()
	have := map[string]bool{}
	for _, p := range packages(t) {
		if !p.DepOnly && within(p.ImportPath, "internal") {
			have[strings.TrimPrefix(p.ImportPath, module+"/")] = true
		}
	}
	if len(have) < 10 {
		t.Fatalf("go list found %d internal packages; the test cannot be checking anything", len(have))
	}
	for _, doc := range []struct{ file, from, to string }{
		{"docs/ARCHITECTURE.md", "## 1. The parts", "## 2. "},
		{"AGENTS.md", "## Where things are", "\n## "},
	} {
		named := sectionPaths(t, doc.file, doc.from, doc.to)
		for _, p := range sorted(have) {
			if !named[p] {
				t.Errorf("%s (%s) does not name the package %s: add it where it belongs", doc.file, doc.from, p)
			}
		}
		for _, p := range sorted(named) {
			if !have[p] {
				t.Errorf("%s (%s) names %s, which is not a package (renamed or removed?)", doc.file, doc.from, p)
			}
		}
	}
}

// sectionPaths reads the backticked internal/ paths of one section of a
// document at the module root: from the heading `from` to the next text
// `to` after it.
func sectionPaths(t *testing.T, file, from, to string) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", file))
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(raw), from)
	if !ok {
		t.Fatalf("%s has no section %q", file, from)
	}
	if i := strings.Index(body, to); i >= 0 {
		body = body[:i]
	}
	named := map[string]bool{}
	for _, m := range mappedPath.FindAllStringSubmatch(body, -1) {
		named[strings.TrimSuffix(m[1], "/")] = true
	}
	return named
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
