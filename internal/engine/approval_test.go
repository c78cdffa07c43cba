package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
)

// guarded is a tool whose every call needs the given approval, with a
// reason; it counts the calls that really ran.
type guarded struct {
	tools.Spec
	need  tools.Approval
	grant *tools.Grant // the authority its calls leave later work (nil: none)
	ran   atomic.Int32
}

func newGuarded(need tools.Approval) *guarded {
	return &guarded{need: need, Spec: tools.Spec{ToolName: "Guarded", Desc: "test tool",
		Schema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}}}
}

func (g *guarded) Prepare(in json.RawMessage) (*tools.Call, error) {
	p := tools.Policy{Approval: g.need, Grant: g.grant}
	if g.need == tools.Explicit {
		p.Reason = "writes .git/config, which decides what git runs"
	}
	return tools.NewCall(in, p, func(context.Context, *tools.Context) (tools.Result, error) {
		g.ran.Add(1)
		return tools.OK("wrote it"), nil
	}), nil
}

func (g *guarded) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, g, tc, in)
}

func (g *guarded) toolset(engine.TurnEnv) engine.Toolset {
	reg := tools.NewRegistry()
	reg.Register(g)
	return engine.Toolset{Registry: reg}
}

// approveEach sends each message as a turn and answers every card with
// answer (its ID filled in), returning the cards.
func (h *harness) approveEach(answer engine.ApproveToolCall, msgs ...string) []engine.ApprovalRequired {
	return h.approveEachSeeing(answer, func(engine.Event) {}, msgs...)
}

// approveEachSeeing is approveEach handing every event to see as well.
func (h *harness) approveEachSeeing(answer engine.ApproveToolCall, see func(engine.Event), msgs ...string) []engine.ApprovalRequired {
	var cards []engine.ApprovalRequired
	for _, m := range msgs {
		h.eng.Submit(engine.SendMessage{Content: m})
		h.collect(func(ev engine.Event) {
			see(ev)
			if a, ok := ev.(engine.ApprovalRequired); ok {
				cards = append(cards, a)
				answer.ID = a.ID
				h.eng.Submit(answer)
			}
		})
	}
	return cards
}

func guardedHarness(t *testing.T, g *guarded, posture posture.Posture, interactive, auto bool) *harness {
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "g1", Name: "Guarded", Args: `{"path":".git/config"}`}),
		fakemodel.Text("done"))
	return newHarness(t, srv, func(o *engine.Options) {
		o.Posture, o.Interactive, o.AutoApprove = posture, interactive, auto
		o.Tools = g.toolset
	})
}

// An Explicit call runs only under Full Access or with a person's yes; every
// other posture and host refuses it naming the reason, --auto included.
// README.md "Modes and permissions": an explicit approval runs only under Full Access or with a person's yes; Auto-Review, Never and every headless run (--auto included) refuse it with the reason.
func TestExplicitApprovalUnderEveryPosture(t *testing.T) {
	t.Parallel()
	const reason = "It needs explicit approval: writes .git/config, which decides what git runs."
	tests := []struct {
		name        string
		posture     posture.Posture
		auto        bool
		ran         bool
		want        string
		approvalReq bool
	}{
		{"full access", posture.FullAccess, false, true, "wrote it", false},
		{"full access --yolo", posture.FullAccess, true, true, "wrote it", false},
		{"ask headless", posture.Ask, false, false, "Tool 'Guarded' needs explicit approval (approval_required). " + reason, true},
		{"ask --auto", posture.Ask, true, false, "--auto approves only ordinary prompts", true},
		{"auto-review", posture.AutoReview, false, false, "Auto-Review held tool 'Guarded' without pausing. " + reason, false},
		{"auto-review --auto", posture.AutoReview, true, false, "Auto-Review held tool 'Guarded' without pausing. " + reason, false},
		{"never --auto", posture.Never, true, false, "Blocked tool 'Guarded' (approval_mode=never). " + reason, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newGuarded(tools.Explicit)
			h := guardedHarness(t, g, tt.posture, false, tt.auto)
			evs := h.turn("write the config")
			res, _ := last[engine.ToolCallComplete](evs)
			if (g.ran.Load() == 1) != tt.ran || !strings.Contains(res.Result.Content, tt.want) {
				t.Errorf("ran=%d content=%q; want ran=%v and %q", g.ran.Load(), res.Result.Content, tt.ran, tt.want)
			}
			if done(t, evs).ApprovalRequired != tt.approvalReq {
				t.Errorf("approval_required = %v", !tt.approvalReq)
			}
		})
	}
}

// --auto approves ordinary prompts only under a posture that would prompt:
// it never widens Auto-Review or Never.
func TestAutoApproveNeverWidensThePosture(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		posture posture.Posture
		ran     bool
		want    string
	}{
		{posture.Ask, true, "wrote it"},
		{posture.AutoReview, false, "Auto-Review held tool 'Guarded' without pausing"},
		{posture.Never, false, "Blocked tool 'Guarded' (approval_mode=never)"},
	} {
		g := newGuarded(tools.Required)
		evs := guardedHarness(t, g, tt.posture, false, true).turn("go")
		res, _ := last[engine.ToolCallComplete](evs)
		if (g.ran.Load() == 1) != tt.ran || !strings.Contains(res.Result.Content, tt.want) {
			t.Errorf("%v: ran=%d content=%q", tt.posture, g.ran.Load(), res.Result.Content)
		}
	}
}

// In Ask a person is asked; the card carries the reason and offers no
// session grant: a ForSession answer approves this call only.
// README.md "Modes and permissions": Ask shows an explicit approval's card with the reason and no allow-for-the-session option.
func TestExplicitApprovalPromptsWithReasonAndNoSessionGrant(t *testing.T) {
	t.Parallel()
	g := newGuarded(tools.Explicit)
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "g1", Name: "Guarded", Args: `{"path":".git/config"}`}), fakemodel.Text("one"),
		fakemodel.Tools(fakemodel.Call{ID: "g2", Name: "Guarded", Args: `{"path":".git/config"}`}), fakemodel.Text("two"))
	h := newHarness(t, srv, func(o *engine.Options) {
		o.Posture, o.Interactive, o.AutoApprove = posture.Ask, true, false
		o.Tools = g.toolset
	})
	cards := h.approveEach(engine.ApproveToolCall{ForSession: true}, "one", "two")
	if len(cards) != 2 {
		t.Fatalf("%d cards; a session grant must not cover an explicit call", len(cards))
	}
	if !cards[0].ForcePrompt || cards[0].Reason != "writes .git/config, which decides what git runs" {
		t.Errorf("card = %+v", cards[0])
	}
	if g.ran.Load() != 2 {
		t.Errorf("ran %d times", g.ran.Load())
	}
}

// A tool that says what authority its call leaves later work (an
// automation's runs) has the card carry that account, not the input's.
func TestApprovalCarriesTheToolsGrant(t *testing.T) {
	t.Parallel()
	g := newGuarded(tools.Required)
	g.grant = &tools.Grant{RunsWith: "Ask — …", AllowShell: true, LoweredFrom: "Full Access — …"}
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "g1", Name: "Guarded", Args: `{"path":"x"}`}), fakemodel.Text("done"))
	h := newHarness(t, srv, func(o *engine.Options) {
		o.Posture, o.Interactive, o.AutoApprove = posture.Ask, true, false
		o.Tools = g.toolset
	})
	cards := h.approveEach(engine.ApproveToolCall{}, "go")
	if len(cards) != 1 || cards[0].Authority["runs_with"] != "Ask — …" || cards[0].Authority["allow_shell"] != true ||
		cards[0].Authority["lowered_from"] != "Full Access — …" || cards[0].Authority["auto_approve"] != false {
		t.Fatalf("cards %+v", cards)
	}
}

// The card for a tasks create carries every authority flag it asks for.
// README.md "Modes and permissions": the card shows every authority flag of tasks create.
func TestApprovalCarriesAuthorityFlags(t *testing.T) {
	t.Parallel()
	in := json.RawMessage(`{"action":"create","prompt":"p","auto_approve":true,"trust_mode":true,"allow_shell":false,"mode":"agent"}`)
	got := engine.AuthorityOf("tasks", in)
	if got["auto_approve"] != true || got["trust_mode"] != true || got["allow_shell"] != false || got["mode"] != "agent" || len(got) != 4 {
		t.Errorf("authority %v", got)
	}
	if engine.AuthorityOf("tasks", json.RawMessage(`{"action":"list"}`)) != nil {
		t.Error("list grants nothing")
	}
	if a := engine.AuthorityOf("agent", json.RawMessage(`{"prompt":"p","type":"builder","write_authority":"workspace_write"}`)); a["type"] != "builder" || a["write_authority"] != "workspace_write" {
		t.Errorf("agent authority %v", a)
	}
}
