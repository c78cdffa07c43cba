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

	"github.com/google/jsonschema-go/jsonschema"

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

// input is update_plan's parameter contract (docs/ARCHITECTURE.md §6): the
// published schema and the decoding come from this type. Plan is the
// deprecated step list, read by parseSteps with the contract's messages.
type input struct {
	Title               string    `json:"title,omitempty"`
	Objective           string    `json:"objective,omitempty" jsonschema:"What the work is for, in one or two sentences."`
	ContextSummary      string    `json:"context_summary,omitempty"`
	Explanation         string    `json:"explanation,omitempty"`
	RecommendedApproach string    `json:"recommended_approach,omitempty"`
	VerificationPlan    string    `json:"verification_plan,omitempty"`
	RisksAndUnknowns    string    `json:"risks_and_unknowns,omitempty"`
	HandoffPacket       string    `json:"handoff_packet,omitempty"`
	SourcesUsed         []string  `json:"sources_used,omitempty"`
	CriticalFiles       []string  `json:"critical_files,omitempty"`
	Constraints         []string  `json:"constraints,omitempty"`
	Plan                tools.Raw `json:"plan,omitempty" jsonschema:"Deprecated: use work_update for concrete steps."`
}

// params is built when first read: update_plan is deferred, so most
// sessions never send it.
var params = tools.NewParams[input]("update_plan", tools.ParamOptions[input]{
	Shape: func(s *jsonschema.Schema, _ []string) {
		items, err := jsonschema.For[Step](nil)
		if err != nil {
			panic(err) // two strings; every tool's schema is derived in a test
		}
		items.AdditionalProperties, items.Required = nil, nil
		p := s.Properties["plan"]
		p.Type, p.Items = "array", items
	}})

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
		SchemaFunc: params.Schema,
		Caps:       []tools.Capability{tools.CapWritesFiles},
		Deferred:   true,
		Approve:    tools.Auto,
	}}
}

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3): the
// contract's messages for a malformed `plan`, a step's status that is not a
// string refused in the schema validator's words.
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := params.Decode(raw)
	if err != nil {
		return nil, err
	}
	in := d.In
	st := State{Title: in.Title, Objective: in.Objective, ContextSummary: in.ContextSummary,
		Explanation: in.Explanation, RecommendedApproach: in.RecommendedApproach,
		VerificationPlan: in.VerificationPlan, RisksAndUnknowns: in.RisksAndUnknowns,
		HandoffPacket: in.HandoffPacket, SourcesUsed: in.SourcesUsed, CriticalFiles: in.CriticalFiles,
		Constraints: in.Constraints}
	if d.Has("plan") {
		if st.Plan, err = parseSteps(json.RawMessage(in.Plan)); err != nil {
			return nil, err
		}
		if err := tools.Validate(t.Name(), params.Schema(), d.Input()); err != nil {
			return nil, err
		}
	}
	return tools.NewCall(raw, t.StaticPolicy(), func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		return tools.Sized(t.publish(st), nil, tc, "shorten the plan")
	}), nil
}

// Execute decodes and runs one call (tools.Execute).
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

// publish replaces the plan and reports its progress.
func (t *Tool) publish(st State) tools.Result {
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
	return res
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
