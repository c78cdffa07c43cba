package tools_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/plan"
)

// panicky is a tool whose Execute panics, to prove the registry contains it.
type panicky struct{ tools.Spec }

func (panicky) Execute(context.Context, *tools.Context, json.RawMessage) (tools.Result, error) {
	panic("boom")
}

// CONTRACT.md §3.3: Resolve matches byte for byte (no case, separator or prefix folding) and an unknown name fails
// with the exact not-registered text.
func TestRegistryResolvesExactNamesOnly(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry()
	reg.Register(plan.New(&plan.Store{}))
	for _, name := range []string{"update_plan"} {
		if got, ok := reg.Resolve(name); !ok || got != name {
			t.Errorf("Resolve(%q) = %q, %v", name, got, ok)
		}
	}
	for _, name := range []string{"Update_plan", "UPDATE_PLAN", "update-plan", "updatePlan", "update_plan_tool", "update", "update_plans", ""} {
		if _, ok := reg.Resolve(name); ok {
			t.Errorf("Resolve(%q) guessed a tool", name)
		}
		_, err := reg.Execute(context.Background(), &tools.Context{}, name, json.RawMessage(`{}`))
		if err == nil || tools.AsError(err).Render("x") != "tool '"+name+"' is not registered" {
			t.Errorf("Execute(%q): %v", name, err)
		}
	}
}

// recorder is an untyped tool (an MCP adapter's shape): the registry
// validates its input against its schema before it runs.
type recorder struct {
	tools.Spec
	got *string
}

func (r *recorder) Execute(_ context.Context, _ *tools.Context, in json.RawMessage) (tools.Result, error) {
	*r.got = string(in)
	return tools.OK("ran"), nil
}

func TestRegistryValidatesBeforeRunning(t *testing.T) {
	t.Parallel()
	var got string
	reg := tools.NewRegistry()
	reg.Register(&recorder{got: &got, Spec: tools.Spec{ToolName: "mcp_probe", Schema: map[string]any{"type": "object",
		"properties": map[string]any{"objective": map[string]any{"type": "string"}}}}})
	_, err := reg.Execute(context.Background(), &tools.Context{}, "mcp_probe", json.RawMessage(`{"objective":["x"]}`))
	if err == nil {
		t.Fatal("schema violation accepted")
	}
	msg := tools.AsError(err).Render("mcp_probe")
	if !strings.HasPrefix(msg, "Invalid input for tool 'mcp_probe': arguments do not match the tool's schema: at /objective") {
		t.Errorf("message %q", msg)
	}
	if got != "" {
		t.Error("tool ran despite invalid input")
	}
	if res, err := reg.Execute(context.Background(), &tools.Context{}, "mcp_probe", json.RawMessage(`{"objective":"ok"}`)); err != nil || !res.Success || got == "" {
		t.Errorf("valid call: %v %+v", err, res)
	}
}

// A typed tool (update_plan) is refused by its decoder before it runs, in
// the contract's words.
func TestRegistryRefusesTypedInputBeforeRunning(t *testing.T) {
	t.Parallel()
	store := &plan.Store{}
	reg := tools.NewRegistry()
	reg.Register(plan.New(store))
	_, err := reg.Execute(context.Background(), &tools.Context{}, "update_plan", json.RawMessage(`{"objective":["x"]}`))
	if msg := tools.AsError(err).Render("update_plan"); err == nil ||
		msg != `Invalid input for tool 'update_plan': field 'objective' must be a string; got array. Received: ["x"]` {
		t.Errorf("message %v", err)
	}
	if store.Get().Objective != "" {
		t.Error("tool ran despite invalid input")
	}
	res, err := reg.Execute(context.Background(), &tools.Context{}, "update_plan", json.RawMessage(`{"objective":"ok"}`))
	if err != nil || !res.Success || store.Get().Objective != "ok" {
		t.Errorf("valid call: %v %+v", err, res)
	}
}

// CONTRACT.md §3.1: APITools is sorted in byte order, hides hidden tools, carries allowed_callers and defer_loading,
// is memoised; Remove works; a panic becomes an internal-error refusal.
func TestRegistryAPIToolsAndPanics(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry()
	reg.Register(&panicky{tools.Spec{ToolName: "zeta", Schema: map[string]any{"type": "object"}}})
	reg.Register(&panicky{tools.Spec{ToolName: "Alpha", Schema: map[string]any{"type": "object"}}})
	reg.Register(&panicky{tools.Spec{ToolName: "hidden_alias", Hidden: true, Schema: map[string]any{"type": "object"}}})
	api := reg.APITools()
	if len(api) != 2 || api[0].Name != "Alpha" || api[1].Name != "zeta" {
		t.Fatalf("APITools %v", api)
	}
	if api[0].AllowedCallers[0] != "direct" || api[0].DeferLoading == nil {
		t.Error("allowed_callers/defer_loading missing")
	}
	if &reg.APITools()[0] != &api[0] {
		t.Error("APITools is not memoised")
	}
	if !reg.Contains("hidden_alias") {
		t.Error("hidden alias must stay registered")
	}
	_, err := reg.Execute(context.Background(), &tools.Context{}, "zeta", nil)
	if err == nil || !strings.Contains(err.Error(), "internal error: boom") {
		t.Errorf("panic not contained: %v", err)
	}
	if !reg.Remove("zeta") || reg.Remove("zeta") || len(reg.APITools()) != 1 {
		t.Error("Remove")
	}
}

// A hidden tool's SchemaFunc is not called to build the request's tool list;
// the first call that needs the schema (validation) reads it, and the value
// is the one every later read sees.
func TestSchemaFuncIsReadOnDemand(t *testing.T) {
	t.Parallel()
	reads := 0
	schema := map[string]any{"type": "object", "required": []any{"n"}, "properties": map[string]any{"n": map[string]any{"type": "integer"}}}
	reg := tools.NewRegistry()
	reg.Register(&panicky{tools.Spec{ToolName: "legacy_alias", Hidden: true,
		SchemaFunc: func() map[string]any { reads++; return schema }}})
	reg.Register(plan.New(&plan.Store{}))
	if api := reg.APITools(); len(api) != 1 || api[0].Name != "update_plan" || reads != 0 {
		t.Fatalf("APITools = %d tools, alias schema read %d times", len(api), reads)
	}
	if _, err := reg.Prepare("legacy_alias", json.RawMessage(`{"n":"one"}`)); err == nil || reads == 0 {
		t.Fatalf("Prepare with a bad argument: %v (schema read %d times)", err, reads)
	}
	if tl, _ := reg.Get("legacy_alias"); tl.InputSchema()["required"].([]any)[0] != "n" {
		t.Fatal("InputSchema does not return SchemaFunc's value")
	}
}

// CONTRACT.md §3.1: Register replaces a tool of the same name, and the
// memoised APITools follows the change.
func TestRegisterReplacesAToolOfTheSameName(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry()
	reg.Register(&panicky{tools.Spec{ToolName: "Probe", Desc: "old", Schema: map[string]any{"type": "object"}}})
	if api := reg.APITools(); len(api) != 1 || api[0].Description != "old" {
		t.Fatalf("APITools %v", api)
	}
	reg.Register(&panicky{tools.Spec{ToolName: "Probe", Desc: "new", Schema: map[string]any{"type": "object"}}})
	if api := reg.APITools(); len(api) != 1 || api[0].Description != "new" {
		t.Errorf("after the second Register: %v", api)
	}
	if got, _ := reg.Get("Probe"); got.Description() != "new" || len(reg.Names()) != 1 {
		t.Errorf("Get %q, names %v", got.Description(), reg.Names())
	}
}

// CONTRACT.md §2.1: the capability labels, snake_case, as /tools and the
// receipts print them.
func TestCapabilityLabelsAreSnakeCase(t *testing.T) {
	t.Parallel()
	got := []tools.Capability{tools.CapReadOnly, tools.CapWritesFiles, tools.CapExecutesCode, tools.CapNetwork,
		tools.CapSandboxable, tools.CapRequiresApproval}
	want := []tools.Capability{"read_only", "writes_files", "executes_code", "network", "sandboxable", "requires_approval"}
	if !slices.Equal(got, want) {
		t.Errorf("labels %v, want %v", got, want)
	}
}
