package git

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/hostilerepo"
	"github.com/codewhale/codewhale/internal/tools"
)

// No Git action, on either backend, runs a program the repository planted
// (issue 11 §2): the go-git backend never starts one and hands what it
// cannot reproduce (a fsmonitor, filter drivers) to the binary, which runs
// under gitsafe's configuration.
func TestGitToolRunsNothingTheRepositoryPlants(t *testing.T) {
	t.Parallel()
	r := hostilerepo.New(t)
	r.ProveHostile(t)
	tc := &tools.Context{Workspace: r.Dir}
	calls := []string{
		`{"action":"status"}`,
		`{"action":"diff"}`,
		`{"action":"diff","cached":true}`,
		`{"action":"diff","path":"a.txt"}`,
		`{"action":"log","max_count":5}`,
		`{"action":"show","rev":"HEAD"}`,
		`{"action":"show","rev":"HEAD~1"}`,
		`{"action":"blame","path":"a.txt"}`,
	}
	for name, tool := range map[string]*Tool{"git binary": New(), "go-git only": New(Options{DisableCLI: true})} {
		for _, in := range calls {
			res, err := tool.Execute(context.Background(), tc, json.RawMessage(in))
			if err != nil && name == "git binary" {
				t.Errorf("%s %s: %v", name, in, err)
			}
			if in == `{"action":"status"}` && name == "git binary" && err == nil && !strings.Contains(res.Content, "a.txt") {
				t.Errorf("%s status does not show the change: %s", name, res.Content)
			}
			r.AssertNothingRan(t, name+" "+in)
		}
	}
}
