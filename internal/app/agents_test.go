package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools/agent"
)

func systemOf(r *fakemodel.Request) string {
	if ms := r.Messages(); len(ms) > 0 {
		s, _ := ms[0]["content"].(string)
		return s
	}
	return ""
}

// toolSchema is the input schema of name in r's tools field (nil: absent).
func toolSchema(r *fakemodel.Request, name string) map[string]any {
	ts, _ := r.Body["tools"].([]any)
	for _, t := range ts {
		fn, _ := t.(map[string]any)["function"].(map[string]any)
		if fn["name"] == name {
			p, _ := fn["parameters"].(map[string]any)
			return p
		}
	}
	return nil
}

// A .claude/agents/code-reviewer.md copied from a public repository works
// unchanged as a sub-agent type: refused until trusted, then its body is
// the child's instructions, its Read/Glob/Grep/Bash are the child's only
// tools (File without writes), and its `model: sonnet` leaves the child on
// [agents] default_model. The parent's schema lists the type.
func TestClaudeCodeReviewerRunsUnchanged(t *testing.T) {
	t.Parallel()
	def, err := os.ReadFile(filepath.Join("..", "projectctx", "testdata", "claude-agents", "code-reviewer.md"))
	if err != nil {
		t.Fatal(err)
	}
	srv := fakemodel.New(t)
	var mu sync.Mutex
	var child *fakemodel.Request
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		switch {
		case strings.Contains(systemOf(r), `<subagent_type name="code-reviewer"`):
			mu.Lock()
			child = r
			mu.Unlock()
			return fakemodel.Text("Findings: none blocking.")
		case lastRole(r) == "user" && lastUserHas(r, "review it"):
			return fakemodel.Tools(fakemodel.Call{ID: "c1", Name: "agent", Args: `{"prompt":"review the last change","type":"code-reviewer"}`})
		}
		return fakemodel.Text("Started the reviewer.")
	})
	a := newPromptApp(t, composition{name: "exec-auto", mode: posture.Act, auto: true}, srv)
	a.Cfg.AgentsModel = "deepseek-v4-flash"
	a.Agents = agent.NewManager(agent.Options{Spawner: agent.SpawnFunc(a.spawnChild), Types: a.agentTypes,
		DefaultModel: a.agentModel(), TranscriptDir: t.TempDir()})
	a.Services.Agents = a.Agents
	if err := os.MkdirAll(filepath.Join(a.Cfg.Workspace, ".claude", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.Cfg.Workspace, ".claude", "agents", "code-reviewer.md"), def, 0o644); err != nil {
		t.Fatal(err)
	}
	eng := engine.New(a.EngineOptions())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go eng.Run(ctx)
	turn := func() {
		t.Helper()
		if reply, err := eng.RunTurn(ctx, engine.SendMessage{Content: "review it"}, nil); err != nil || reply.Done.Status != engine.TurnCompleted {
			t.Fatalf("turn: %v %+v", err, reply.Done)
		}
	}
	turn()
	if !srv.Requests()[1].HasToolResult("sub-agent type code-reviewer is defined in") ||
		!srv.Requests()[1].HasToolResult("which is not trusted yet") {
		t.Fatalf("an untrusted definition ran: %v", toolResultsOf(srv.Requests()[1]))
	}
	if typ := toolSchema(srv.Requests()[0], "agent")["properties"].(map[string]any)["type"].(map[string]any); !slices.Contains(typ["enum"].([]any), any("code-reviewer")) ||
		!strings.Contains(typ["description"].(string), "code-reviewer: Reviews code changes for correctness") {
		t.Errorf("the parent's schema does not offer the type: %v", typ)
	}
	if _, err := a.Project().TrustAgents(); err != nil {
		t.Fatal(err)
	}
	turn()
	if _, settled := a.Agents.Wait(ctx, nil, "all", 20*time.Second); !settled {
		t.Fatal("the reviewer did not finish")
	}
	mu.Lock()
	defer mu.Unlock()
	if child == nil {
		t.Fatal("the reviewer never sent a request")
	}
	if sys := systemOf(child); !strings.Contains(sys, "You are a focused code reviewer for the 1Code desktop app.") ||
		!strings.Contains(sys, "- Verification performed or still needed.") {
		t.Errorf("the child's system prompt lacks the body:\n%s", sys)
	}
	if names := child.ToolNames(); !slices.Contains(names, "File") || slices.ContainsFunc(names, func(n string) bool { return n != "File" && n != "Bash" && n != "tool_search" }) {
		t.Errorf("the child's tools %v, want File and Bash only (beside the catalog's tool_search)", names)
	}
	fileActions, _ := json.Marshal(toolSchema(child, "File")["properties"].(map[string]any)["action"])
	if strings.Contains(string(fileActions), `"write"`) {
		t.Errorf("File offers writes to a definition that lists only Read/Glob/Grep: %s", fileActions)
	}
	if child.Body["model"] != "deepseek-v4-flash" {
		t.Errorf("the child's model %v, want [agents] default_model", child.Body["model"])
	}
	if s := a.Agents.List(); len(s) != 1 || s[0].Status != agent.StatusCompleted || s[0].Model != "deepseek-v4-flash" {
		t.Errorf("children %+v", s)
	}
}

// lastUserHas reports whether the last message is the user's and holds
// text (whatever its content's shape on the wire).
func lastUserHas(r *fakemodel.Request, text string) bool {
	ms := r.Messages()
	b, _ := json.Marshal(ms[len(ms)-1]["content"])
	return strings.Contains(string(b), text)
}

func lastRole(r *fakemodel.Request) any {
	ms := r.Messages()
	return ms[len(ms)-1]["role"]
}

func toolResultsOf(r *fakemodel.Request) []string {
	var out []string
	for _, m := range r.Messages() {
		if m["role"] == "tool" {
			s, _ := m["content"].(string)
			out = append(out, s)
		}
	}
	return out
}

// With a few defined types (the Claude Code reviewer and two of ours) the
// first request of the largest composition still fits the budget, and the
// system prompt and tools are the same bytes on the next turn: the types'
// schema is memoised while the definitions are unchanged.
func TestDefinedTypesKeepTheFirstRequestInBudget(t *testing.T) {
	t.Parallel()
	def, err := os.ReadFile(filepath.Join("..", "projectctx", "testdata", "claude-agents", "code-reviewer.md"))
	if err != nil {
		t.Fatal(err)
	}
	srv := fakemodel.New(t)
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Text("ok") })
	a := newPromptApp(t, composition{name: "operate-exec-auto", mode: posture.Operate, auto: true, memory: true}, srv)
	for name, body := range map[string]string{
		".claude/agents/code-reviewer.md": string(def),
		".codewhale/agents/doc-scout.md":  "---\ndescription: Finds the docs a change needs and what they say.\nmode: plan\ntools: File, Web\n---\nFind docs.\n",
		".codewhale/agents/migrator.md":   "---\ndescription: Moves call sites to a new API, one package at a time.\nmodel: deepseek-v4-flash\n---\nMigrate.\n",
	} {
		p := filepath.Join(a.Cfg.Workspace, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	eng := engine.New(a.EngineOptions())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go eng.Run(ctx)
	for i := range 2 {
		if _, err := eng.RunTurn(ctx, engine.SendMessage{Content: "hi"}, nil); err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
	}
	reqs := srv.Requests()
	var body struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(reqs[0].Raw, &body); err != nil {
		t.Fatal(err)
	}
	total := len(body.Messages[0].Content) + len(body.Tools)
	t.Logf("system prompt %d bytes + tools %d bytes = %d bytes", len(body.Messages[0].Content), len(body.Tools), total)
	if total > firstRequestBudget {
		t.Errorf("with three defined types the first request is %d bytes, over the budget of %d", total, firstRequestBudget)
	}
	if !strings.Contains(string(body.Tools), "doc-scout: Finds the docs a change needs") {
		t.Errorf("the types are not in the schema")
	}
	if string(stablePrefix(t, reqs[0])) != string(stablePrefix(t, reqs[1])) {
		t.Error("the second turn sends a different system prompt or tools")
	}
}
