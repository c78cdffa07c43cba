package main

import (
	"os/exec"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakegithub"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// The replay alias github_issue_context and the canonical github
// issue_context give the model the same result, through the real gh.
func TestExecGitHubAliasMatchesCanonical(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("gh"); err != nil {
		e2e.Missing(t, "the GitHub CLI gh is not installed (apt install gh)")
	}
	gh := fakegithub.New(t)
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "a", Name: "github_issue_context", Args: `{"number":1,"repo":"octo/widgets"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "c", Name: "github", Args: `{"action":"issue_context","number":1,"repo":"octo/widgets"}`}),
		fakemodel.Text("The parser panics on empty input."))
	c := newCLI(t, srv)
	c.config("[github]\nhosts = [\"" + gh.Host() + "\"]\n")
	c.env = append(c.env, gh.Env(t, fakegithub.Token)...)
	out, errOut, code := c.run("exec", "--output-format", "stream-json", "what is issue 1 about?")
	if code != 0 {
		t.Fatalf("code %d: %s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	results := map[string]string{}
	for _, m := range reqs[2].Messages() {
		if m["role"] == "tool" {
			id, _ := m["tool_call_id"].(string)
			results[id], _ = m["content"].(string)
		}
	}
	if results["a"] == "" || results["a"] != results["c"] {
		t.Fatalf("alias and canonical differ:\n%s\n%s", results["a"], results["c"])
	}
	if !reqs[1].HasToolResult(`"title":"Parser panics on empty input"`) {
		t.Errorf("the issue did not reach the model: %s", results["a"])
	}
	for _, n := range reqs[0].ToolNames() {
		if n == "github" || n == "github_issue_context" {
			t.Errorf("%s sent on the first request", n)
		}
	}
}
