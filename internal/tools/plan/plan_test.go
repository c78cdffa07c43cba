package plan

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// CONTRACT.md §6.9: each call replaces the plan and answers with the exact 'Plan updated: … (<pct>% done)' text then
// the JSON.
func TestUpdatePlan(t *testing.T) {
	t.Parallel()
	store := &Store{}
	tool := New(store)
	if !tool.DeferLoading() || !tool.ModelVisible() || tool.ApprovalFor(nil) != tools.Auto {
		t.Error("update_plan is model-visible, deferred and Auto")
	}
	in := json.RawMessage(`{"objective":"Port the registry","constraints":["no fuzzy resolve"],"plan":[{"step":"a","status":"done"},{"step":"b","status":"in-progress"},{"step":"c","status":"weird"}]}`)
	res, err := tool.Execute(context.Background(), &tools.Context{}, in)
	if err != nil || !strings.HasPrefix(res.Content, "Plan updated: 1 pending, 1 in progress, 1 completed (33% done)\n{") {
		t.Fatalf("%v %q", err, res.Content)
	}
	if st := store.Get(); st.Objective != "Port the registry" || st.Plan[2].Status != "pending" {
		t.Errorf("state %+v", st)
	}
	for raw, want := range map[string]string{`{"plan":"x"}`: "Invalid 'plan' array", `{"plan":[{"status":"done"}]}`: "Plan item missing 'step'",
		`{"plan":[{"step":"a","status":1}]}`: "arguments do not match the tool's schema: at /plan/0/status",
		`{"title":3}`:                        "field 'title' must be a string"} {
		if _, err := tool.Execute(context.Background(), &tools.Context{}, json.RawMessage(raw)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", raw, err)
		}
	}
}

// update_plan's published schema and decoder agree.
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	paramtest.Agree(t, paramtest.Case{Tool: New(&Store{}),
		Samples: map[string]any{"plan": []any{map[string]any{"step": "a", "status": "done"}}}})
}
