package engine_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
// README.md "User commands and skills": a command's mode and model apply to its turn only and never widen the session's mode
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

// A tool_call_before ask is a hold: only a person in an Ask session may let
// the call run. Auto-Review, Full Access (interactive or not) and a
// headless --auto run refuse it without a card, and nothing runs.
// CONTRACT.md §17.4: an ask makes the call need a person's explicit approval — Ask shows the card, Auto-Review,
// Full Access and headless runs refuse it.
func TestHookAskIsRefusedWhereNoOneIsAsked(t *testing.T) {
	t.Parallel()
	ask := config.Hook{Event: engine.HookToolBefore, Matcher: "File:read",
		Command: `echo '{"decision":"ask","reason":"reads are audited here"}'`}
	for _, tc := range []struct {
		name        string
		p           posture.Posture
		interactive bool
		want        string
	}{
		{"Auto-Review", posture.AutoReview, true, "Auto-Review held tool 'File' without pausing"},
		{"Full Access", posture.FullAccess, true, "Tool 'File' requires explicit approval and is blocked in Full Access"},
		{"Full Access headless", posture.FullAccess, false, "Tool 'File' requires explicit approval and is blocked in Full Access"},
		{"Ask headless --auto", posture.Ask, false, "needs explicit approval (approval_required)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "r", Name: "File", Args: `{"action":"read","path":"a.txt"}`}),
				fakemodel.Text("ok"))
			h := newHarness(t, srv, withHooks(t, ask), func(o *engine.Options) {
				o.Posture, o.Interactive, o.AutoApprove = tc.p, tc.interactive, !tc.interactive
			})
			if err := os.WriteFile(filepath.Join(h.ws, "a.txt"), []byte("secret-ish"), 0o644); err != nil {
				t.Fatal(err)
			}
			evs := h.collectAfter(engine.SendMessage{Content: "read it"}, func(ev engine.Event) {
				if a, ok := ev.(engine.ApprovalRequired); ok {
					h.eng.Submit(engine.DenyToolCall{ID: a.ID})
				}
			})
			if n := len(all[engine.ApprovalRequired](evs)); n != 0 {
				t.Errorf("%d approval card(s)", n)
			}
			res := all[engine.ToolCallComplete](evs)[0].Result
			if res.Success || strings.Contains(res.Content, "secret-ish") || !strings.Contains(res.Content, tc.want) ||
				!strings.Contains(res.Content, "a tool_call_before hook asks for a person's approval: reads are audited here") ||
				strings.Contains(res.Content, "must run under Full Access") {
				t.Errorf("result %q, want the refusal %q", res.Content, tc.want)
			}
		})
	}
}

// The turn_end payload is the turn as it ended: a turn of two steps (a
// call, then the answer) says steps 2, as its TurnComplete does.
// CONTRACT.md §17.4: the payload has turn (status, steps, error).
func TestTurnEndHookSeesTheTurnsSteps(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "l", Name: "File", Args: `{"action":"list"}`}), fakemodel.Text("ok"))
	h := newHarness(t, srv, withHooks(t, config.Hook{Event: engine.HookTurnEnd,
		Command: `python3 -c 'import json,sys; t=json.load(sys.stdin)["turn"]; print(json.dumps({"message": "%s in %d steps" % (t["status"], t["steps"])}))'`}))
	evs := h.turn("list")
	done := all[engine.TurnComplete](evs)
	if len(done) != 1 || done[0].Steps != 2 {
		t.Fatalf("turn %+v", done)
	}
	if !slices.Contains(describe(evs), "status:turn_end hook: completed in 2 steps") {
		t.Errorf("events %v", describe(evs))
	}
}

// A notification hook that fails is reported like any hook: to an
// interactive host as a status when it finishes (after the turn, for
// turn_done); a headless host gets it from the runner at exit.
// CONTRACT.md §17.4: a failure is a status `Hook <name> (<event>, <file>) <what happened>; …`.
func TestNotificationHookFailuresAreReported(t *testing.T) {
	t.Parallel()
	want := "Hook bell (notification, config.toml) failed (exit 3): no bell; the session goes on as if it had not run."
	for _, interactive := range []bool{true, false} {
		r, err := hooks.New(hooks.Options{Use: hooks.Trusted, UserFile: "config.toml", Workspace: t.TempDir(),
			User: []config.Hook{{Name: "bell", Event: engine.HookNotification, Command: "sleep 0.2; echo no bell >&2; exit 3"}}})
		if err != nil {
			t.Fatal(err)
		}
		h := newHarness(t, fakemodel.New(t, fakemodel.Text("ok")), func(o *engine.Options) {
			o.Hooks, o.Interactive, o.AutoApprove = r, interactive, !interactive
		})
		if evs := describe(h.turn("hi")); slices.Contains(evs, "status:"+want) {
			t.Fatalf("the notification's failure was reported before it ran: %v", evs)
		}
		var after []string
		if interactive {
			select {
			case ev := <-h.eng.Events():
				after = describe([]engine.Event{ev})
			case <-time.After(15 * time.Second):
			}
			if got := r.Wait(); !slices.Equal(after, []string{"status:" + want}) || len(got) != 0 {
				t.Errorf("interactive: events after the turn %q, left for exit %q", after, got)
			}
			continue
		}
		if got := r.Wait(); !slices.Equal(got, []string{want}) {
			t.Errorf("headless: left for exit %q", got)
		}
		select {
		case ev := <-h.eng.Events():
			t.Errorf("headless: an event after the turn: %v", describe([]engine.Event{ev}))
		default:
		}
	}
}
