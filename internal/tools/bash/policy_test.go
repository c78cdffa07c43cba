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
		{`{"action":"kill","command":"ls"}`, tools.Required, false, false, false},
		{`not json`, tools.Required, false, false, false},
		{`{"command":"rm -rf /"}`, tools.Auto, false, false, false},
		{`{"command":"git push --force"}`, tools.Explicit, false, false, false},
		{`{"command":"printenv DEEPSEEK_API_KEY"}`, tools.Explicit, false, false, false},
		{`{"command":"eval \"$X\""}`, tools.Explicit, false, false, false},
	}
	for _, tc := range tests {
		in := json.RawMessage(tc.in)
		if got := tool.ApprovalFor(in); got != tc.approval {
			t.Errorf("ApprovalFor(%s) = %v, want %v", tc.in, got, tc.approval)
		}
		if got := tool.ReadOnlyFor(in); got != tc.readOnly {
			t.Errorf("ReadOnlyFor(%s) = %v", tc.in, got)
		}
		if got := tool.ParallelSafeFor(in); got != tc.parallel {
			t.Errorf("ParallelSafeFor(%s) = %v", tc.in, got)
		}
		if got := tool.StartsDetachedFor(in); got != tc.detached {
			t.Errorf("StartsDetachedFor(%s) = %v", tc.in, got)
		}
	}
	if r := tool.ApprovalReason(json.RawMessage(`{"command":"git clean -fdx"}`)); !strings.Contains(r, "deletes untracked files") {
		t.Errorf("reason = %q", r)
	}
	if tool.Name() != "Bash" || !tool.ModelVisible() || tool.DeferLoading() {
		t.Fatal("Bash must be a model-visible eager tool named Bash")
	}
}
