package plan_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/plan"
	"github.com/codewhale/codewhale/internal/toolset"
)

// CONTRACT.md §6.9: the strategy is optional — the schema publishes exactly title, objective, context_summary,
// explanation, recommended_approach, verification_plan, risks_and_unknowns, handoff_packet, sources_used,
// critical_files, constraints and the legacy plan array of {step, status}, and requires none of them.
func TestContract69OptionalStrategyFields(t *testing.T) {
	t.Parallel()
	schema := plan.New(&plan.Store{}).InputSchema()
	props := schema["properties"].(map[string]any)
	var names []string
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	want := []string{"constraints", "context_summary", "critical_files", "explanation", "handoff_packet", "objective",
		"plan", "recommended_approach", "risks_and_unknowns", "sources_used", "title", "verification_plan"}
	if !slices.Equal(names, want) {
		t.Errorf("properties %v, want %v", names, want)
	}
	if req, _ := json.Marshal(schema["required"]); string(req) != "null" && string(req) != "[]" {
		t.Errorf("required %s, want none", req)
	}
	items, _ := json.Marshal(props["plan"])
	if !strings.Contains(string(items), `"items":{"properties":{"status":{"type":"string"},"step":{"type":"string"}},"type":"object"}`) {
		t.Errorf("plan %s, want an array of {step, status}", items)
	}
	res, err := tools.Execute(context.Background(), plan.New(&plan.Store{}), &tools.Context{}, json.RawMessage(`{}`))
	if err != nil || res.Content != "Plan updated: 0 pending, 0 in progress, 0 completed (0% done)\n{}" {
		t.Errorf("an empty plan: %q %v", res.Content, err)
	}
}

// CONTRACT.md §6.9: each call replaces the plan — a field the second call does not send is gone, not kept — and
// answers with the exact counts line, then the plan as pretty JSON.
func TestContract69EachCallReplacesThePlan(t *testing.T) {
	t.Parallel()
	store := &plan.Store{}
	tool := plan.New(store)
	first := `{"objective":"Port the registry","constraints":["no fuzzy resolve"],"plan":[{"step":"a","status":"completed"},{"step":"b","status":"pending"}]}`
	if _, err := tools.Execute(context.Background(), tool, &tools.Context{}, json.RawMessage(first)); err != nil {
		t.Fatal(err)
	}
	res, err := tools.Execute(context.Background(), tool, &tools.Context{}, json.RawMessage(`{"title":"Second","plan":[{"step":"c","status":"in_progress"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "Plan updated: 0 pending, 1 in progress, 0 completed (0% done)\n" +
		"{\n  \"title\": \"Second\",\n  \"plan\": [\n    {\n      \"step\": \"c\",\n      \"status\": \"in_progress\"\n    }\n  ]\n}"
	if res.Content != want {
		t.Errorf("content\n%s\nwant\n%s", res.Content, want)
	}
	if st := store.Get(); st.Objective != "" || st.Constraints != nil || st.Title != "Second" || len(st.Plan) != 1 {
		t.Errorf("the second call did not replace the plan: %+v", st)
	}
}

// CONTRACT.md §6.9: update_plan never feeds the Work block (CONTRACT.md §7) — after a plan with an in-progress step
// the next request carries no <codewhale:work_state>, while a work_update in the same turn makes one appear, holding
// the To-do alone. The session's real services (internal/toolset) against the fake model.
func TestContract69PlanNeverFeedsTheWorkBlock(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "p", Name: "update_plan",
			Args: `{"objective":"PLAN-OBJECTIVE","plan":[{"step":"PLAN-STEP","status":"in_progress"}]}`}),
		fakemodel.Tools(fakemodel.Call{ID: "w", Name: "work_update", Args: `{"todos":[{"content":"Todo item","status":"in_progress"}]}`}),
		fakemodel.Text("done"))
	svc := toolset.NewServices(toolset.Options{Workspace: t.TempDir(), Home: t.TempDir()})
	eng := engine.New(engine.Options{Workspace: svc.Workspace, Model: "deepseek-v4-pro", Mode: posture.Act, AutoApprove: true,
		NewClient: func(model string) (*provider.Client, error) {
			return provider.New(provider.Config{BaseURL: srv.URL, Model: model,
				Retry: provider.RetryPolicy{Enabled: true, MaxRetries: 1, InitialDelay: time.Millisecond, MaxDelay: time.Millisecond}})
		},
		Tools: svc.Toolset, WorkState: svc.WorkState})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go eng.Run(ctx)
	if reply, err := eng.RunTurn(ctx, engine.SendMessage{Content: "plan, then track"}, nil); err != nil || reply.Done.Status != engine.TurnCompleted {
		t.Fatalf("turn: %v %+v", err, reply.Done)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !reqs[1].HasToolResult("Plan updated: 0 pending, 1 in progress") {
		t.Fatalf("%d requests; the plan call did not run", len(reqs))
	}
	if svc.Plan.Get().Objective != "PLAN-OBJECTIVE" {
		t.Fatal("the plan was not published")
	}
	for _, m := range reqs[1].Messages() {
		if s, _ := m["content"].(string); m["role"] == "user" && strings.Contains(s, "codewhale:work_state") {
			t.Errorf("a plan alone produced a work_state block: %q", s)
		}
	}
	ms := reqs[2].Messages()
	last, _ := ms[len(ms)-1]["content"].(string)
	if last != "<codewhale:work_state>\nTo-do (0% settled)\n- [~] #1 Todo item\n</codewhale:work_state>" {
		t.Errorf("after work_update the request ends with %q, want the To-do block alone", last)
	}
}
