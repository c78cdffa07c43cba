package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/canonjson"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/agent"
)

// recorder is a Spawner whose children answer at once and which keeps
// every ChildConfig it was given.
type recorder struct {
	mu   sync.Mutex
	cfgs []agent.ChildConfig
}

func (r *recorder) Spawn(_ context.Context, cc agent.ChildConfig) (agent.Run, error) {
	r.mu.Lock()
	r.cfgs = append(r.cfgs, cc)
	r.mu.Unlock()
	return doneRun{}, nil
}

func (r *recorder) last() agent.ChildConfig {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cfgs[len(r.cfgs)-1]
}

type doneRun struct{}

func (doneRun) Turn(_ context.Context, _ string, progress func(agent.Progress)) agent.Receipt {
	progress(agent.Progress{})
	return agent.Receipt{Outcome: agent.TurnCompleted, Reply: "done", Steps: 1,
		Usage: provider.Usage{InputTokens: 100, OutputTokens: 10}}
}

func (doneRun) Steer(string) {}

func planMode() *posture.Mode { m := posture.Plan; return &m }

// sessionTypes are defined types as the app hands them over: one that
// replaces the built-in reviewer, a Claude Code writer-free reviewer with
// Bash, a read-only planner-like type, and an untrusted one.
func sessionTypes() *agent.Types {
	return agent.NewTypes([]agent.Type{
		{Name: "reviewer", Description: "Reviews with our checklist.", Instructions: "Use the checklist.", Source: "home"},
		{Name: "code-reviewer", Description: "Reviews code changes for correctness.", Instructions: "You are a focused code reviewer.",
			Tools: []string{"File", "Bash"}, FileReadOnly: true, ActOnly: []string{"Bash"}, Source: ".claude/agents/code-reviewer.md"},
		{Name: "doc-scout", Description: "Finds docs.", Instructions: "Find docs.", Mode: planMode(), Model: "deepseek-v4-flash",
			ReasoningEffort: "low", Tools: []string{"File"}, Source: "home"},
		{Name: "fixer", Description: "Fixes things.", Instructions: "Fix.", Source: ".codewhale/agents/fixer.md",
			Untrusted: "is defined in .codewhale/agents/fixer.md, which you have not trusted: review it, then /agents trust"},
	})
}

func typedManager(t *testing.T, types *agent.Types) (*agent.Manager, *recorder) {
	t.Helper()
	rec := &recorder{}
	m := agent.NewManager(agent.Options{Spawner: rec, DefaultModel: "deepseek-v4-pro", Types: func() *agent.Types { return types }})
	t.Cleanup(func() { m.Drain(context.Background(), 0, 5*time.Second) })
	return m, rec
}

func startIn(t *testing.T, tool tools.Tool, mode posture.Mode, in string) (tools.Result, error) {
	t.Helper()
	return tools.Execute(context.Background(), tool, &tools.Context{Mode: mode, Workspace: t.TempDir()}, json.RawMessage(in))
}

// A defined type is a value of `type`: its instructions, tools, model and
// effort reach the child; a name equal to a built-in role keeps that role's
// read-only mode; a model the call names wins; the rest use the default.
// README.md "Sub-agents": a type's instructions, tools, model and effort reach the child, a built-in role's name replaces its instructions, and the call's model wins.
func TestDefinedTypesReachTheChild(t *testing.T) {
	t.Parallel()
	m, rec := typedManager(t, sessionTypes())
	tool := agent.New(m, nil)
	for _, c := range []struct {
		in          string
		mode        posture.Mode
		model, text string
		tools       string
	}{
		{`{"prompt":"look","type":"code-reviewer"}`, posture.Act, "deepseek-v4-pro", "You are a focused code reviewer.", "File,Bash"},
		{`{"prompt":"look","type":"reviewer"}`, posture.Plan, "deepseek-v4-pro", "Use the checklist.", ""},
		{`{"prompt":"look","type":"doc-scout"}`, posture.Plan, "deepseek-v4-flash", "Find docs.", "File"},
		{`{"prompt":"look","type":"doc-scout","model":"m-from-call"}`, posture.Plan, "m-from-call", "Find docs.", "File"},
		{`{"prompt":"look"}`, posture.Act, "deepseek-v4-pro", "", ""},
	} {
		res, err := startIn(t, tool, posture.Act, c.in)
		if err != nil || !res.Success {
			t.Fatalf("%s: %v %s", c.in, err, res.Content)
		}
		var receipt map[string]any
		_ = json.Unmarshal([]byte(res.Content), &receipt)
		if _, settled := m.Wait(context.Background(), []string{receipt["agent_id"].(string)}, "completion", 10*time.Second); !settled {
			t.Fatalf("%s: the child did not finish", c.in)
		}
		cc := rec.last()
		if cc.Mode != c.mode || cc.Model != c.model || cc.Instructions != c.text || strings.Join(cc.Tools, ",") != c.tools {
			t.Errorf("%s: child config %+v", c.in, cc)
		}
	}
	if cc := rec.cfgs[0]; !cc.FileReadOnly || cc.TypeSource != ".claude/agents/code-reviewer.md" {
		t.Errorf("code-reviewer config %+v", cc)
	}
	if cc := rec.cfgs[2]; cc.ReasoningEffort != "low" || !cc.ReadOnly {
		t.Errorf("doc-scout config %+v", cc)
	}
	byModel := m.UsageByModel()
	if byModel["deepseek-v4-pro"].InputTokens != 300 || byModel["deepseek-v4-flash"].InputTokens != 100 ||
		byModel["m-from-call"].OutputTokens != 10 {
		t.Errorf("usage by model %+v", byModel)
	}
}

// An untrusted type is refused before anyone is asked to approve it; a
// type that needs tools Plan never offers is refused in Plan; approval
// follows the type's mode.
// README.md "Sub-agents": an untrusted type is refused and a type needing tools Plan never offers is refused in Plan.
func TestTypeRefusalsAndPolicy(t *testing.T) {
	t.Parallel()
	m, _ := typedManager(t, sessionTypes())
	tool := agent.New(m, nil)
	if _, err := tools.PrepareCall(tool, json.RawMessage(`{"prompt":"x","type":"fixer"}`)); err == nil ||
		!strings.Contains(tools.AsError(err).Render("agent"), "sub-agent type fixer is defined in .codewhale/agents/fixer.md, which you have not trusted") {
		t.Errorf("untrusted: %v", err)
	}
	_, err := startIn(t, tool, posture.Plan, `{"prompt":"x","type":"code-reviewer"}`)
	if err == nil || !strings.Contains(tools.AsError(err).Render("agent"), "sub-agent type code-reviewer lists Bash, which Plan mode never offers") {
		t.Errorf("Bash in Plan: %v", err)
	}
	for in, want := range map[string]tools.Approval{
		`{"prompt":"x","type":"doc-scout"}`:                 tools.Auto,
		`{"prompt":"x","type":"reviewer"}`:                  tools.Auto,
		`{"prompt":"x","type":"code-reviewer"}`:             tools.Required,
		`{"prompt":"x","type":"doc-scout","worktree":true}`: tools.Suggest,
	} {
		if c, err := tools.PrepareCall(tool, json.RawMessage(in)); err != nil || c.Policy.Approval != want {
			t.Errorf("%s: %+v %v, want %v", in, c, err, want)
		}
	}
}

// The schema lists the defined types after the built-in roles, bounded,
// and is the same bytes for every turn's registry while the types are the
// same; without types it is the built-in schema.
// README.md "Sub-agents": the model sees the defined types in the agent tool's type field.
func TestSchemaListsTypesStably(t *testing.T) {
	t.Parallel()
	m, _ := typedManager(t, sessionTypes())
	a, _ := canonjson.Append(nil, agent.New(m, nil).InputSchema())
	b, _ := canonjson.Append(nil, agent.New(m, nil).InputSchema())
	if string(a) != string(b) {
		t.Fatal("two turns' schemas differ")
	}
	typ := agent.New(m, nil).InputSchema()["properties"].(map[string]any)["type"].(map[string]any)
	enum, _ := json.Marshal(typ["enum"])
	if string(enum) != `["worker","scout","planner","reviewer","builder","verifier","consultant","custom","code-reviewer","doc-scout","fixer"]` {
		t.Errorf("enum %s", enum)
	}
	if d := typ["description"].(string); !strings.Contains(d, "code-reviewer: Reviews code changes for correctness.") || len(d) > 1700 {
		t.Errorf("description %q", d)
	}
	plain, _ := typedManager(t, nil)
	c, _ := canonjson.Append(nil, agent.New(plain, nil).InputSchema())
	if strings.Contains(string(c), "Defined:") || !strings.Contains(string(c), `"custom"]`) {
		t.Errorf("schema without types %s", c)
	}
	var many []agent.Type
	for i := range 80 {
		many = append(many, agent.Type{Name: "t" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26)),
			Description: strings.Repeat("A long description that goes on. ", 10)})
	}
	big, _ := typedManager(t, agent.NewTypes(many))
	d := agent.New(big, nil).InputSchema()["properties"].(map[string]any)["type"].(map[string]any)["description"].(string)
	if len(d) > 1700 || !strings.Contains(d, "more; each is a valid type.") {
		t.Errorf("80 types: %d bytes %q", len(d), d)
	}
}

// CONTRACT.md §4.6: a sub-agent started from Plan runs read-only, whatever
// its type would otherwise get.
func TestChildOfPlanIsReadOnly(t *testing.T) {
	t.Parallel()
	m, rec := typedManager(t, sessionTypes())
	tool := agent.New(m, nil)
	for _, in := range []string{`{"prompt":"look"}`, `{"prompt":"look","type":"reviewer"}`} {
		res, err := startIn(t, tool, posture.Plan, in)
		if err != nil || !res.Success {
			t.Fatalf("%s: %v %s", in, err, res.Content)
		}
		var receipt map[string]any
		_ = json.Unmarshal([]byte(res.Content), &receipt)
		if _, settled := m.Wait(context.Background(), []string{receipt["agent_id"].(string)}, "completion", 10*time.Second); !settled {
			t.Fatalf("%s: the child did not finish", in)
		}
		if cc := rec.last(); cc.Mode != posture.Plan || !cc.ReadOnly {
			t.Errorf("%s from Plan: child mode %v, read-only %v", in, cc.Mode, cc.ReadOnly)
		}
	}
}
