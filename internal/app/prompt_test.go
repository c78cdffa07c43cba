package app

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/prompt"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools/agent"
)

var update = flag.Bool("update", false, "rewrite the golden system prompts")

// composition is one way a session runs: the host (TUI, exec, sub-agent),
// the mode and the posture, and the flags that shape them.
type composition struct {
	name       string
	mode       posture.Mode
	posture    posture.Posture
	auto       bool   // exec --auto
	tui        bool   // a person answers prompts
	unconfined bool   // no OS sandbox
	memory     bool   // [memory] enabled (registers remember)
	child      string // a sub-agent of this role, started by an exec --auto session
}

var compositions = []composition{
	{name: "act-tui-ask", mode: posture.Act, tui: true},
	{name: "act-tui-auto-review", mode: posture.Act, posture: posture.AutoReview, tui: true},
	{name: "act-tui-full-access", mode: posture.Act, posture: posture.FullAccess, tui: true},
	{name: "act-tui-ask-unconfined", mode: posture.Act, tui: true, unconfined: true},
	{name: "plan-tui-ask", mode: posture.Plan, tui: true},
	{name: "operate-tui-ask", mode: posture.Operate, tui: true},
	{name: "act-exec", mode: posture.Act},
	{name: "act-exec-auto", mode: posture.Act, auto: true},
	{name: "act-exec-yolo", mode: posture.Act, posture: posture.FullAccess, auto: true},
	{name: "plan-exec-auto", mode: posture.Plan, auto: true},
	{name: "operate-exec-auto", mode: posture.Operate, auto: true, memory: true},
	{name: "subagent-scout", mode: posture.Act, auto: true, child: "scout"},
	{name: "subagent-worker", mode: posture.Act, auto: true, child: "worker"},
}

// newPromptApp builds the session of c in a fresh home and workspace,
// talking to srv, with a sandbox whose status does not depend on the
// machine (enforced Landlock, or none).
func newPromptApp(t testing.TB, c composition, srv *fakemodel.Server) *App {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "CODEWHALE_HOME": filepath.Join(home, ".codewhale"), "CODEWHALE_BASE_URL": srv.URL,
		"CODEWHALE_TASKS_DIR": filepath.Join(home, "tasks")}
	if c.memory {
		env["CODEWHALE_MEMORY"] = "1"
	}
	cfg, err := config.Load(config.Flags{Workspace: ws}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	mode, posture := c.mode, c.posture
	a, err := New(cfg, Options{Version: "test", Mode: &mode, Posture: &posture, AutoApprove: c.auto, Interactive: c.tui,
		NoMCP: true, NoJournal: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	a.Sandbox = nil
	if !c.unconfined {
		a.Sandbox = sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: ws},
			sandbox.Options{Probe: func() sandbox.Caps { return sandbox.Caps{LandlockABI: 6, MountNS: true} }})
	}
	return a
}

// engineOf is the engine of c's first request: the session's own, or the
// sub-agent's the session would start.
func engineOf(t *testing.T, c composition, a *App) *engine.Engine {
	t.Helper()
	if c.child == "" {
		return engine.New(a.EngineOptions())
	}
	eng, _, err := a.childFactory(agent.ChildConfig{ID: "agent_test", Role: c.child, ReadOnly: agent.ReadOnlyRole(c.child),
		Depth: 1, MaxDepth: 2})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// The system prompt of every composition is pinned (testdata/prompts,
// -update rewrites them) and covers every row of prompt.Rows, each by the
// marker its section carries.
// CONTRACT.md §9.13: every composition (mode, host, sub-agent role, posture) is golden and covers every row of
// prompt.Rows.
func TestSystemPromptCompositions(t *testing.T) {
	t.Parallel()
	for _, c := range compositions {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := newPromptApp(t, c, fakemodel.New(t))
			s := engineOf(t, c, a).FirstRequestSurfaceFor(provenanceOf(c))
			system, composed := s.System(), prompt.Compose(s.PromptEnv())
			if system != composed.Text {
				t.Errorf("the session's prompt is not the composed one (no project files here):\n%s", system)
			}
			for _, r := range prompt.Rows {
				if !slices.Contains(composed.Rows, r.ID) {
					t.Errorf("row %q (%s) is not covered", r.ID, r.What)
				}
			}
			golden(t, filepath.Join("testdata", "prompts", c.name+".md"), system)
		})
	}
}

// provenanceOf is the provenance of c's input: a sub-agent's is its
// parent's handoff.
func provenanceOf(c composition) string {
	if c.child != "" {
		return engine.ProvenanceSubagent
	}
	return engine.ProvenanceUser
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update and read the diff):\n%s", path, got)
	}
}

// firstRequest runs one turn of c against a fake model and returns the
// system prompt and the raw tools field of its first request, as sent, and
// the size of its whole body.
func firstRequest(t *testing.T, c composition) (system string, tools json.RawMessage, size int) {
	t.Helper()
	srv := fakemodel.New(t, fakemodel.Text("ok"))
	a := newPromptApp(t, c, srv)
	eng := engineOf(t, c, a)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go eng.Run(ctx)
	if _, err := eng.RunTurn(ctx, engine.SendMessage{Content: "hi", Provenance: provenanceOf(c)}, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(reqs[0].Raw, &body); err != nil || len(body.Messages) == 0 || body.Messages[0].Role != "system" {
		t.Fatalf("body %s: %v", reqs[0].Raw, err)
	}
	return body.Messages[0].Content, body.Tools, len(reqs[0].Raw)
}
