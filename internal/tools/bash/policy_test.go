package bash

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/tools"
)

func TestPolicyPredicates(t *testing.T) {
	t.Parallel()
	m, err := jobs.NewManager(jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tool := New(Options{Jobs: m})
	tests := []struct {
		in                           string
		approval                     tools.Approval
		readOnly, parallel, detached bool
	}{
		{`{"command":"ls -la"}`, tools.Auto, true, true, false},
		{`{"action":"run","command":"git status && rg x"}`, tools.Auto, true, true, false},
		{`{"command":"ls > out.txt"}`, tools.Required, false, false, false},
		{`{"command":"make build"}`, tools.Required, false, false, false},
		{`{"command":"ls","background":true}`, tools.Required, false, false, true},
		{`{"command":"ls","tty":true}`, tools.Required, false, false, true},
		{`{"command":"ls","interactive":true}`, tools.Required, false, false, false},
		{`{"command":"ls","combined_output":true}`, tools.Required, false, false, false},
		{`{"command":"cat","stdin":"x"}`, tools.Required, false, false, false},
		{`{"command":"cat","input":"x"}`, tools.Required, false, false, false},
		{`{"action":"wait","task_id":"shell_1"}`, tools.Auto, true, false, false},
		{`{"action":"cancel","all":true}`, tools.Auto, false, false, false},
		{`{"action":"interact","task_id":"shell_1","stdin":"y"}`, tools.Required, false, false, false},
		{`{"command":"rm -rf /"}`, tools.Auto, false, false, false},
		{`{"command":"git push --force"}`, tools.Explicit, false, false, false},
		{`{"command":"printenv DEEPSEEK_API_KEY"}`, tools.Explicit, false, false, false},
		{`{"command":"eval \"$X\""}`, tools.Explicit, false, false, false},
	}
	for _, tc := range tests {
		c, err := tools.PrepareCall(tool, json.RawMessage(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if p := c.Policy; p.Approval != tc.approval || p.ReadOnly != tc.readOnly || p.Parallel != tc.parallel ||
			p.Detached != tc.detached {
			t.Errorf("policy(%s) = %+v, want approval %v read-only %v parallel %v detached %v", tc.in, p,
				tc.approval, tc.readOnly, tc.parallel, tc.detached)
		}
	}
	// Input the decoder refuses has no policy: it never reaches approval.
	for _, in := range []string{`{"action":"kill","command":"ls"}`, `not json`} {
		if c, err := tools.PrepareCall(tool, json.RawMessage(in)); err == nil {
			t.Errorf("%s prepared: %+v", in, c.Policy)
		}
	}
	if c, err := tools.PrepareCall(tool, json.RawMessage(`{"command":"git clean -fdx"}`)); err != nil ||
		!strings.Contains(c.Policy.Reason, "deletes untracked files") {
		t.Errorf("reason = %+v %v", c, err)
	}
	if tool.Name() != "Bash" || !tool.ModelVisible() || tool.DeferLoading() {
		t.Fatal("Bash must be a model-visible eager tool named Bash")
	}
}
