// Package plan implements update_plan: optional high-level strategy the model
// may publish (CONTRACT.md §6.9). It is deferred (reachable through tool_search
// only) and is never a Work surface: its state does not feed the
// work-grounding block.
package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/codewhale/codewhale/internal/tools"
)

// Step is one item of the deprecated `plan` array.
type Step struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// State is the published plan.
type State struct {
	Title               string   `json:"title,omitempty"`
	Objective           string   `json:"objective,omitempty"`
	ContextSummary      string   `json:"context_summary,omitempty"`
	Explanation         string   `json:"explanation,omitempty"`
	RecommendedApproach string   `json:"recommended_approach,omitempty"`
	VerificationPlan    string   `json:"verification_plan,omitempty"`
	RisksAndUnknowns    string   `json:"risks_and_unknowns,omitempty"`
	HandoffPacket       string   `json:"handoff_packet,omitempty"`
	SourcesUsed         []string `json:"sources_used,omitempty"`
	CriticalFiles       []string `json:"critical_files,omitempty"`
	Constraints         []string `json:"constraints,omitempty"`
	Plan                []Step   `json:"plan,omitempty"`
}

// Store holds one session's plan.
type Store struct {
	mu    sync.Mutex
	state State
}

// Get returns the current plan.
func (s *Store) Get() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

var stringFields = []string{"title", "objective", "context_summary", "explanation", "recommended_approach",
	"verification_plan", "risks_and_unknowns", "handoff_packet"}
var listFields = []string{"sources_used", "critical_files", "constraints"}

// schema is built once, when first read: update_plan is deferred, so most
// sessions never send it.
var schema = sync.OnceValue(func() map[string]any {
	props := map[string]any{}
	for _, f := range stringFields {
		props[f] = map[string]any{"type": "string"}
	}
	for _, f := range listFields {
		props[f] = map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	}
	props["objective"] = map[string]any{"type": "string", "description": "What the work is for, in one or two sentences."}
	props["plan"] = map[string]any{"type": "array", "description": "Deprecated: use work_update for concrete steps.",
		"items": map[string]any{"type": "object", "properties": map[string]any{
			"step": map[string]any{"type": "string"}, "status": map[string]any{"type": "string"}}}}
	return map[string]any{"type": "object", "properties": props}
})

// Tool is update_plan.
type Tool struct {
	tools.Spec
	store *Store
}

// New returns update_plan writing to store.
func New(store *Store) *Tool {
	return &Tool{store: store, Spec: tools.Spec{
		ToolName: "update_plan",
		Desc: "Publish optional high-level strategy: objective, phases, constraints, verification and handoff " +
			"context. Each call replaces the plan. This is not the To-do list: track concrete work with work_update.",
		SchemaFunc: schema,
		Caps:       []tools.Capability{tools.CapWritesFiles},
		Deferred:   true,
		Approve:    tools.Auto,
	}}
}

// NormalizeInput gives the contract's messages for a malformed `plan` before
// schema validation would.
func (t *Tool) NormalizeInput(in json.RawMessage) (json.RawMessage, error) {
	args, err := tools.ParseArgs(in)
	if err != nil {
		return nil, err
	}
	if raw, ok := args["plan"]; ok {
		if _, err := parseSteps(raw); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// Execute runs the call and sizes its result to the call's budget
// (tools.Sized), saying how to get what was cut.
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	res, err := t.execute(ctx, tc, in)
	return tools.Sized(res, err, tc, "shorten the plan")
}

func (t *Tool) execute(_ context.Context, _ *tools.Context, in json.RawMessage) (tools.Result, error) {
	args, err := tools.ParseArgs(in)
	if err != nil {
		return tools.Result{}, err
	}
	var st State
	strs := map[string]*string{"title": &st.Title, "objective": &st.Objective, "context_summary": &st.ContextSummary,
		"explanation": &st.Explanation, "recommended_approach": &st.RecommendedApproach,
		"verification_plan": &st.VerificationPlan, "risks_and_unknowns": &st.RisksAndUnknowns, "handoff_packet": &st.HandoffPacket}
	for _, f := range stringFields {
		if *strs[f], _, err = args.String(f); err != nil {
			return tools.Result{}, err
		}
	}
	lists := map[string]*[]string{"sources_used": &st.SourcesUsed, "critical_files": &st.CriticalFiles, "constraints": &st.Constraints}
	for _, f := range listFields {
		if *lists[f], _, err = args.StringList(f); err != nil {
			return tools.Result{}, err
		}
	}
	if raw, ok := args["plan"]; ok {
		if st.Plan, err = parseSteps(raw); err != nil {
			return tools.Result{}, err
		}
	}
	t.store.mu.Lock()
	t.store.state = st
	t.store.mu.Unlock()
	var pending, progress, done int
	for _, s := range st.Plan {
		switch s.Status {
		case "in_progress":
			progress++
		case "completed":
			done++
		default:
			pending++
		}
	}
	pct := 0
	if n := len(st.Plan); n > 0 {
		pct = (done*100 + n/2) / n
	}
	body, _ := json.MarshalIndent(st, "", "  ")
	res := tools.OK(fmt.Sprintf("Plan updated: %d pending, %d in progress, %d completed (%d%% done)\n%s", pending, progress, done, pct, body))
	res.Metadata = map[string]any{"plan": st}
	return res, nil
}

func parseSteps(raw json.RawMessage) ([]Step, error) {
	var items []map[string]json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, tools.InvalidInput("Invalid 'plan' array")
	}
	steps := make([]Step, 0, len(items))
	for _, it := range items {
		var s Step
		if json.Unmarshal(it["step"], &s.Step) != nil || strings.TrimSpace(s.Step) == "" {
			return nil, tools.InvalidInput("Plan item missing 'step'")
		}
		var status string
		_ = json.Unmarshal(it["status"], &status)
		switch strings.ToLower(strings.ReplaceAll(strings.TrimSpace(status), "-", "_")) {
		case "in_progress", "inprogress":
			s.Status = "in_progress"
		case "completed", "complete", "done":
			s.Status = "completed"
		default:
			s.Status = "pending"
		}
		steps = append(steps, s)
	}
	return steps, nil
}
