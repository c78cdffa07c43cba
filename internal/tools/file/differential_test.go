package file

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// differentialPatterns are searched on any tree scripts/differential.sh
// points at, each with and without case_insensitive.
var differentialPatterns = []string{
	`func \w+\(`, `TODO|FIXME`, `(?i)unicode`, `STRASSE|ǅ`, `abc|é`, `\d{4,}`, `^\s*#`, `[[:upper:]]{4,}`, `\p{Greek}+`,
	`error$`, `\bnil\b`, `naïve|café`, `^$`, `\t\t\t`, `(?:http|https)://\S+`,
}

// TestDifferentialSearchTree compares search_content with rg on the tree
// named by CODEWHALE_DIFF_TREE (scripts/differential.sh's search section
// sets it), match for match in path order, and prints one DIFFERENTIAL line
// per pattern and a total; it does nothing without it.
func TestDifferentialSearchTree(t *testing.T) {
	root := os.Getenv("CODEWHALE_DIFF_TREE")
	if root == "" {
		t.Skip("set CODEWHALE_DIFF_TREE to a directory (scripts/differential.sh does)")
	}
	needRG(t)
	root = tools.Canonical(root)
	e := &env{t: t, ws: root, tc: &tools.Context{Workspace: root, Budget: 1 << 30}, tool: New(Options{})}
	e.reg = tools.NewRegistry()
	e.reg.Register(e.tool)
	agree, disagree := 0, 0
	for _, p := range differentialPatterns {
		for _, ci := range []bool{false, true} {
			var args []string
			if ci {
				args = append(args, "-i")
			}
			want := withoutSecrets(e, rgHits(t, root, append(args, "-e", p, ".")...))
			got, res := searchHits(t, e, map[string]any{"pattern": p, "case_insensitive": ci})
			label := strings.TrimSpace(p + " " + strings.Join(args, " "))
			if slices.Equal(got, want) && res.TotalMatches == len(want) {
				agree++
				fmt.Printf("DIFFERENTIAL search %-44q agree (%d matches)\n", label, len(want))
				continue
			}
			disagree++
			fmt.Printf("DIFFERENTIAL search %-44q DISAGREE: search_content %d (total %d), rg %d; %s\n",
				label, len(got), res.TotalMatches, len(want), firstDiff(got, want))
		}
	}
	for _, g := range differentialGlobs(t, root) {
		want := withoutSecrets(e, rgHits(t, root, "-g", g.rg, "-e", g.pattern, "."))
		got, res := searchHits(t, e, map[string]any{"pattern": g.pattern, g.field: []string{g.glob}})
		label := fmt.Sprintf("%s %s=%s", g.pattern, g.field, g.glob)
		if slices.Equal(got, want) && res.TotalMatches == len(want) {
			agree++
			fmt.Printf("DIFFERENTIAL search %-44q agree (%d matches)\n", label, len(want))
			continue
		}
		disagree++
		fmt.Printf("DIFFERENTIAL search %-44q DISAGREE: search_content %d (total %d), rg %d; %s\n",
			label, len(got), res.TotalMatches, len(want), firstDiff(got, want))
	}
	if skippedCount, msg := compareSkips(t, e, root); msg != "" {
		disagree++
		fmt.Printf("DIFFERENTIAL search skipped files DISAGREE: %s\n", msg)
	} else {
		agree++
		fmt.Printf("DIFFERENTIAL search skipped files agree (%d)\n", skippedCount)
	}
	fmt.Printf("DIFFERENTIAL search_content vs rg: %d agree, %d disagree\n", agree, disagree)
	if disagree > 0 {
		t.Fail()
	}
}

// withoutSecrets drops rg's hits in files search_content never reads
// (secret files such as *.pem, internal/secrets): it skips and counts them.
func withoutSecrets(e *env, hits []hit) []hit {
	return slices.DeleteFunc(hits, func(h hit) bool { return e.tool.Secret(filepath.Join(e.ws, filepath.FromSlash(h.File))) })
}

// globRun is one search with an include or exclude glob and rg's -g for it.
type globRun struct{ pattern, field, glob, rg string }

// differentialGlobs are the glob forms rg takes, on the tree's first two
// top-level folders: `name/` (folders only), `/name` (only at the top), a
// file glob to include and one to exclude.
func differentialGlobs(t *testing.T, root string) []globRun {
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	const p = `func \w+\(`
	runs := []globRun{{p, "include", "*.go", "*.go"}, {p, "exclude", "*_test.go", "!*_test.go"}}
	dirs := 0
	for _, en := range entries {
		if !en.IsDir() || strings.HasPrefix(en.Name(), ".") || dirs == 2 {
			continue
		}
		dirs++
		runs = append(runs, globRun{p, "exclude", en.Name() + "/", "!" + en.Name() + "/"},
			globRun{p, "exclude", "/" + en.Name(), "!/" + en.Name()})
	}
	return runs
}

// compareSkips checks that the files search_content reports skipping as
// binary, over 10 MiB or unreadable are the ones rg leaves unsearched:
// counted in files_skipped, the first of them in path order named in
// skipped_paths. It returns how many rg left unsearched and what differs,
// or "".
func compareSkips(t *testing.T, e *env, root string) (int, string) {
	var want []string
	for _, p := range rgSkipped(t, root) {
		if !e.tool.Secret(filepath.Join(root, filepath.FromSlash(p))) {
			want = append(want, p)
		}
	}
	slices.Sort(want)
	_, res := searchHits(t, e, map[string]any{"pattern": "x"})
	counted := 0
	if s := res.Skipped; s != nil {
		counted = int(s.Binary + s.TooLarge + s.Unreadable)
	}
	var named []string
	for _, s := range res.SkippedPaths {
		named = append(named, s.Path)
	}
	if counted != len(want) || !slices.Equal(named, want[:min(len(want), maxSkipListed)]) {
		return len(want), fmt.Sprintf("search_content counted %d and named %v; rg left %d unsearched, first %v",
			counted, named, len(want), want[:min(len(want), maxSkipListed)])
	}
	return len(want), ""
}
