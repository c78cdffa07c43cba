package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/hooks"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

func withHooks(t *testing.T, specs ...config.Hook) func(*engine.Options) {
	t.Helper()
	r, err := hooks.New(hooks.Options{Use: hooks.Trusted, User: specs, UserFile: "config.toml", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return func(o *engine.Options) { o.Hooks = r }
}

// A tool_call_before hook that asks makes the call need a person: an
// interactive Ask session shows the card with the hook's reason; a
// headless --auto run refuses it (auto-approval is for ordinary prompts).
// CONTRACT.md §17.4: a tool_call_before ask makes the call need a person's explicit approval.
func TestHookAskNeedsAPersonsApproval(t *testing.T) {
	t.Parallel()
	ask := config.Hook{Event: engine.HookToolBefore, Matcher: "File:read",
		Command: `echo '{"decision":"ask","reason":"reads are audited here"}'`}
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "r", Name: "File", Args: `{"action":"read","path":"a.txt"}`}),
		fakemodel.Text("ok"))
	h := newHarness(t, srv, withHooks(t, ask), func(o *engine.Options) { o.Interactive, o.AutoApprove = true, false })
	if err := os.WriteFile(filepath.Join(h.ws, "a.txt"), []byte("secret-ish"), 0o644); err != nil {
		t.Fatal(err)
	}
	evs := h.collectAfter(engine.SendMessage{Content: "read it"}, func(ev engine.Event) {
		if a, ok := ev.(engine.ApprovalRequired); ok {
			if !a.ForcePrompt || !strings.Contains(a.Reason, "a tool_call_before hook asks for a person's approval: reads are audited here") {
				t.Errorf("card %+v", a)
			}
			h.eng.Submit(engine.DenyToolCall{ID: a.ID})
		}
	})
	if len(all[engine.ApprovalRequired](evs)) != 1 {
		t.Fatal("no approval card for an Auto read the hook asked about")
	}
	if res := all[engine.ToolCallComplete](evs)[0].Result; !strings.Contains(res.Content, "denied by user") {
		t.Errorf("result %q", res.Content)
	}

	srv2 := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "r", Name: "File", Args: `{"action":"read","path":"a.txt"}`}),
		fakemodel.Text("ok"))
	h2 := newHarness(t, srv2, withHooks(t, ask))
	res := all[engine.ToolCallComplete](h2.turn("read it"))[0].Result
	if !strings.Contains(res.Content, "needs explicit approval (approval_required)") || !strings.Contains(res.Content, "reads are audited here") {
		t.Errorf("headless --auto: %q", res.Content)
	}
}

// tool_call_after adds its note to the result the model reads; turn_end's
// message is a status.
func TestAfterAndTurnEndHooks(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "l", Name: "File", Args: `{"action":"list"}`}), fakemodel.Text("ok"))
	h := newHarness(t, srv, withHooks(t,
		config.Hook{Event: engine.HookToolAfter, Command: `echo '{"message":"remember: generated files live in gen/"}'`},
		config.Hook{Event: engine.HookTurnEnd, Command: `python3 -c 'import json,sys; t=json.load(sys.stdin)["turn"]; print(json.dumps({"message": "turn " + t["status"]}))'`}))
	evs := h.turn("list")
	if !srv.Requests()[1].HasToolResult("\n\n[tool_call_after hook] remember: generated files live in gen/") {
		t.Errorf("note missing: %v", srv.Requests()[1].Messages())
	}
	if !strings.Contains(strings.Join(describe(evs), "\n"), "status:turn_end hook: turn completed") {
		t.Errorf("events %v", describe(evs))
	}
}

// A user command's scope narrows its one turn: Plan and its tools, never a
// wider mode; the next turn is the session's again.
// CONTRACT.md §17.2: a command's scope sets the turn's model, mode and allow list, never widens Plan, and says so in a
// Status.
func TestTurnScopeNarrowsAndNeverWidens(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("a"), fakemodel.Text("b"), fakemodel.Text("c"))
	h := newHarness(t, srv)
	plan := posture.Plan
	evs := h.collectAfter(engine.SendMessage{Content: "x", Scope: &engine.TurnScope{Command: "survey", Mode: &plan,
		Model: "deepseek-v4-flash", AllowTools: []string{"File", "Git"}}}, nil)
	if got := strings.Join(srv.Requests()[0].ToolNames(), ","); got != "File,Git" {
		t.Errorf("scoped tools %s", got)
	}
	if !strings.Contains(strings.Join(describe(evs), "\n"),
		"status:/survey runs in Plan mode; uses model deepseek-v4-flash; may use only File, Git for this turn.") {
		t.Errorf("events %v", describe(evs))
	}
	h.turn("y")
	if got := srv.Requests()[1].ToolNames(); strings.Join(got, ",") != "File,Git,work_update,tool_search" {
		t.Errorf("the next turn must have the session's tools again: %v", got)
	}
	if a, b := srv.Requests()[0].Body["model"], srv.Requests()[1].Body["model"]; a != "deepseek-v4-flash" || b != "deepseek-v4-pro" {
		t.Errorf("models %v then %v, want the command's for its turn and the session's after", a, b)
	}
	hp := newHarness(t, fakemodel.New(t, fakemodel.Text("a")), func(o *engine.Options) { o.Mode = posture.Plan })
	act := posture.Act
	evs = hp.collectAfter(engine.SendMessage{Content: "x", Scope: &engine.TurnScope{Command: "fix", Mode: &act}}, nil)
	if !strings.Contains(strings.Join(describe(evs), "\n"), "stays in Plan mode") {
		t.Errorf("a command must not widen Plan: %v", describe(evs))
	}
}

// collectAfter submits send and collects its turn's events.
func (h *harness) collectAfter(send engine.SendMessage, onEvent func(engine.Event)) []engine.Event {
	h.t.Helper()
	h.eng.Submit(send)
	return h.collect(onEvent)
}
