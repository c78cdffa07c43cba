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
