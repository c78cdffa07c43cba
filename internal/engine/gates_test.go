package engine_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
)

// channels is a tool that answers each call by its "how": a result that
// ran and failed, a refusal, or a success whose metadata carries a marker.
type channels struct{ tools.Spec }

func (channels) Execute(_ context.Context, _ *tools.Context, in json.RawMessage) (tools.Result, error) {
	var a struct{ How string }
	_ = json.Unmarshal(in, &a)
	switch a.How {
	case "failed":
		return tools.Failed("exit status 3"), nil
	case "refused":
		return tools.Result{}, tools.ExecutionFailed("could not start: no such program")
	}
	res := tools.OK("all good")
	res.Metadata = map[string]any{"ui_only": "METADATA-MARKER-7f3a"}
	return res, nil
}

// CONTRACT.md §2.1: the two failure channels stay apart in what the model
// receives — a result that ran and failed is its content as it is, a refusal
// is "Error: <text>" marked as an error — and Result.Metadata never reaches
// the model, only the hosts' events.
// CONTRACT.md §9.9: a refusal is appended as 'Error: <text>' marked as an error, a tool-reported failure as its
// content.
func TestFailureChannelsAndMetadataStayApart(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(
		fakemodel.Call{ID: "f", Name: "Probe", Args: `{"how":"failed"}`},
		fakemodel.Call{ID: "r", Name: "Probe", Args: `{"how":"refused"}`},
		fakemodel.Call{ID: "m", Name: "Probe", Args: `{"how":"meta"}`},
	), fakemodel.Text("done"))
	probe := &channels{tools.Spec{ToolName: "Probe", Desc: "probe", ReadOnly: true, Caps: []tools.Capability{tools.CapReadOnly},
		Schema: map[string]any{"type": "object", "properties": map[string]any{"how": map[string]any{"type": "string"}}}}}
	h := newHarness(t, srv, func(o *engine.Options) {
		o.Tools = func(engine.TurnEnv) engine.Toolset {
			reg := tools.NewRegistry()
			reg.Register(probe)
			return engine.Toolset{Registry: reg}
		}
	})
	evs := h.turn("go")
	res := all[engine.ToolCallComplete](evs)
	if len(res) != 3 {
		t.Fatalf("%d results", len(res))
	}
	if r := res[0].Result; r.IsError || r.Content != "exit status 3" {
		t.Errorf("ran and failed: %+v", r)
	}
	if r := res[1].Result; !r.IsError || !strings.Contains(r.Content, "could not start: no such program") {
		t.Errorf("refusal: %+v", r)
	}
	if res[2].Result.Metadata["ui_only"] != "METADATA-MARKER-7f3a" {
		t.Errorf("the host did not get the metadata: %+v", res[2].Result.Metadata)
	}
	second := srv.Requests()[1]
	if !second.HasToolResult("Error: could not start: no such program") || !second.HasToolResult("exit status 3") ||
		second.HasToolResult("Error: exit status 3") {
		t.Errorf("tool messages: %v", second.Messages())
	}
	if strings.Contains(string(second.Raw), "METADATA-MARKER-7f3a") {
		t.Error("Result.Metadata reached the model")
	}
}

// CONTRACT.md §4.4: a call to a deferred tool that was not loaded loads it
// for the rest of the turn, says so in the exact status, and runs with its
// original input; the next step's request carries it.
func TestDirectCallToADeferredToolLoadsAndRunsIt(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "p", Name: "update_plan", Args: `{"objective":"Load me"}`}),
		fakemodel.Text("ok"))
	h := newHarness(t, srv)
	evs := h.turn("plan")
	if !strings.Contains(strings.Join(describe(evs), "\n"),
		"status:Auto-loaded deferred tool 'update_plan' and retrying the pending call in the same turn.") {
		t.Errorf("events %v", describe(evs))
	}
	if h.svc.Plan.Get().Objective != "Load me" {
		t.Error("the deferred call did not run with its input")
	}
	reqs := srv.Requests()
	if strings.Contains(strings.Join(reqs[0].ToolNames(), ","), "update_plan") ||
		!strings.HasSuffix(strings.Join(reqs[1].ToolNames(), ","), ",update_plan") {
		t.Errorf("tools %v then %v", reqs[0].ToolNames(), reqs[1].ToolNames())
	}
}

// CONTRACT.md §4.8: the lists gate dispatch too, deny before allow, with the
// exact texts; a refused call runs nothing.
// CONTRACT.md §9.7: the deny list is checked before the allow list, and a blocked call still gets its one result.
func TestAllowAndDenyListsGateDispatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		allow, deny []string
		want        string
	}{
		{"denied", nil, []string{"UPDATE_*"}, "Tool 'update_plan' is in the disallowed-tools list"},
		{"not allowed", []string{"File", "Git"}, nil, "Tool 'update_plan' is not in the allowed-tools list for the current command"},
		{"deny beats allow", []string{"update_plan"}, []string{"update_plan"}, "Tool 'update_plan' is in the disallowed-tools list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t,
				fakemodel.Tools(fakemodel.Call{ID: "p", Name: "update_plan", Args: `{"objective":"x"}`}),
				fakemodel.Text("ok"))
			h := newHarness(t, srv, func(o *engine.Options) { o.AllowTools, o.DenyTools = tc.allow, tc.deny })
			res := all[engine.ToolCallComplete](h.turn("go"))
			if len(res) != 1 || !res[0].Result.IsError || !strings.Contains(res[0].Result.Content, tc.want) {
				t.Errorf("results %+v", res)
			}
			if h.svc.Plan.Get().Objective != "" {
				t.Error("the refused call ran")
			}
		})
	}
}

// CONTRACT.md §8.4: a provider failure that ends the turn carries its
// envelope category, and its Error event a severity from the contract's set.
func TestProviderFailuresCarryTheirCategory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		want   string
	}{
		{401, "authentication"}, {403, "authorization"}, {429, "rate_limit"}, {400, "invalid_input"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t)
			srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
				return fakemodel.Reply{Status: tc.status, Body: `{"error":{"message":"no"}}`}
			})
			evs := newHarness(t, srv).turn("hi")
			if d := done(t, evs); d.Status != engine.TurnFailed || d.ErrorCategory != tc.want {
				t.Errorf("HTTP %d: status %v category %q, want failed %q", tc.status, d.Status, d.ErrorCategory, tc.want)
			}
			errs := all[engine.Error](evs)
			if len(errs) == 0 {
				t.Fatalf("HTTP %d: no Error event", tc.status)
			}
			for _, e := range errs {
				if !slices.Contains([]string{"info", "warning", "error", "critical"}, e.Severity) {
					t.Errorf("HTTP %d: severity %q", tc.status, e.Severity)
				}
			}
			if last := errs[len(errs)-1]; last.Category != tc.want {
				t.Errorf("HTTP %d: the Error event's category %q", tc.status, last.Category)
			}
		})
	}
}

// CONTRACT.md §4.8: a replay alias obeys the rules of the tool it stands
// for as well as its own name's — denying work_update denies todo_write,
// and allowing work_update allows it.
func TestAllowAndDenyListsReachReplayAliases(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		allow, deny []string
		ran         bool
	}{
		{"denied by its tool", nil, []string{"work_update"}, false},
		{"denied by a rule for its tool", nil, []string{"work_*"}, false},
		{"not allowed", []string{"File"}, nil, false},
		{"allowed by its tool", []string{"work_update"}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t,
				fakemodel.Tools(fakemodel.Call{ID: "w", Name: "todo_write", Args: `{"todos":[{"content":"x","status":"pending"}]}`}),
				fakemodel.Text("ok"))
			h := newHarness(t, srv, func(o *engine.Options) { o.AllowTools, o.DenyTools = tc.allow, tc.deny })
			res := all[engine.ToolCallComplete](h.turn("go"))
			if len(res) != 1 || res[0].Result.IsError == tc.ran {
				t.Fatalf("results %+v", res)
			}
			if ran := len(h.svc.Ledger.Snapshot().Items) > 0; ran != tc.ran {
				t.Errorf("the alias ran = %v, want %v", ran, tc.ran)
			}
		})
	}
}
