package file

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/tools"
)

// TestSearchContentAgreesWithRgOnGOROOT is the search differential on data
// this project did not write (issue 32 item 5): GOROOT's own sources, read
// by search_content and by rg, must give the same (file, line) matches.
func TestSearchContentAgreesWithRgOnGOROOT(t *testing.T) {
	t.Parallel()
	rg, err := exec.LookPath("rg")
	if err != nil {
		e2e.Missing(t, "rg is the reference search_content is compared with")
	}
	total := 0
	defer func() {
		if total < 100 {
			t.Errorf("rg found only %d matching lines in GOROOT: the comparison checked nothing much", total)
		}
	}()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	for _, dir := range []string{"strings", "encoding/csv", "unicode/utf8"} {
		ws := filepath.Join(goroot, "src", filepath.FromSlash(dir))
		tool := New(Options{})
		tc := &tools.Context{Workspace: ws}
		for _, pattern := range []string{`^func [A-Z]`, `TODO`, `\bErr[A-Z]\w+`, `(?i)unicode`} {
			in, _ := json.Marshal(map[string]any{"action": "search_content", "pattern": pattern, "max_results": 5000,
				"context_lines": 0, "exclude": []string{}})
			res, err := tool.Execute(t.Context(), tc, in)
			if err != nil || !res.Success {
				t.Fatalf("%s %s: %v %s", dir, pattern, err, res.Content)
			}
			var got contentResult
			if err := json.Unmarshal([]byte(res.Content), &got); err != nil {
				t.Fatal(err)
			}
			var tool []string
			for _, m := range got.Matches {
				tool = append(tool, m.File+":"+itoa(m.LineNumber))
			}
			cmd := exec.Command(rg, "-n", "--no-heading", "--with-filename", "-o", "-r", "", pattern)
			cmd.Dir = ws
			out, _ := cmd.Output()
			seen := map[string]bool{}
			var want []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if l == "" {
					continue
				}
				parts := strings.SplitN(l, ":", 3)
				k := parts[0] + ":" + parts[1]
				if !seen[k] {
					seen[k] = true
					want = append(want, k)
				}
			}
			sort.Strings(tool)
			sort.Strings(want)
			total += len(want)
			if strings.Join(tool, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s %q: the tool found %d lines, rg %d", dir, pattern, len(tool), len(want))
			}
		}
	}
}
