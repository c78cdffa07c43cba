package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
)

// confinedShell fails the way Bash does when the sandbox refuses a write,
// and succeeds when it runs outside the sandbox; it records the modes it
// ran under.
type confinedShell struct {
	tools.Spec
	mu    sync.Mutex
	modes []sandbox.Mode
}

func newConfinedShell() *confinedShell {
	return &confinedShell{Spec: tools.Spec{ToolName: "Shell", Desc: "test shell", Caps: []tools.Capability{tools.CapSandboxable},
		Schema: map[string]any{"type": "object", "properties": map[string]any{"command": map[string]any{"type": "string"}}}}}
}

func (s *confinedShell) Execute(_ context.Context, tc *tools.Context, _ json.RawMessage) (tools.Result, error) {
	mode := tc.Sandbox.Policy().Mode
	s.mu.Lock()
	s.modes = append(s.modes, mode)
	s.mu.Unlock()
	if mode == sandbox.FullAccess {
		return tools.OK("wrote /outside/x"), nil
	}
	res := tools.Failed("sh: cannot create /outside/x: Permission denied\n\n[sandbox] refused")
	res.Metadata = map[string]any{"sandbox_denied": map[string]any{"path": "/outside/x", "reason": "outside_writable_roots"}}
	return res, nil
}

func (s *confinedShell) ran() []sandbox.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sandbox.Mode(nil), s.modes...)
}

func rerunHarness(t *testing.T, sh *confinedShell, posture posture.Posture, interactive, auto bool) *harness {
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "s1", Name: "Shell", Args: `{"command":"echo x > /outside/x"}`}),
		fakemodel.Text("done"))
	return newHarness(t, srv, func(o *engine.Options) {
		o.Posture, o.Interactive, o.AutoApprove = posture, interactive, auto
		o.Sandbox = sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: o.Workspace},
			sandbox.Options{Probe: func() sandbox.Caps { return sandbox.Caps{LandlockABI: 7} }})
		o.Tools = func(engine.TurnEnv) engine.Toolset {
			reg := tools.NewRegistry()
			reg.Register(sh)
			return engine.Toolset{Registry: reg}
		}
	})
}

// In Ask a person may approve one run outside the sandbox after a refusal:
// the card names what was refused, a yes re-runs the call unconfined once,
// a no keeps the refusal. Nobody else is ever offered it.
// README.md "Sandbox": in Ask with a person, a refusal offers one explicit re-run outside the sandbox; yes re-runs it unconfined, no keeps the refusal, and no one else is offered it.
func TestSandboxRefusalOffersOneRunOutside(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		approve bool
		want    string
		modes   int
	}{
		{"approved", true, "the user approved running it once outside the sandbox, and this is that run's result.\n\nwrote /outside/x", 2},
		{"denied", false, "The user did not approve running this command outside the sandbox.", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sh := newConfinedShell()
			h := rerunHarness(t, sh, posture.Ask, true, false)
			cards := answerEach(h, tt.approve, "write outside")
			if len(cards) != 1 || !cards[0].ForcePrompt || !strings.Contains(cards[0].Reason, "the sandbox refused a write to /outside/x") ||
				!strings.Contains(cards[0].Reason, "OUTSIDE the sandbox") {
				t.Fatalf("cards %+v", cards)
			}
			modes := sh.ran()
			if len(modes) != tt.modes || modes[0] != sandbox.WorkspaceWrite || (tt.approve && modes[1] != sandbox.FullAccess) {
				t.Fatalf("ran under %v", modes)
			}
			msgs := h.srv.Requests()[1]
			if !msgs.HasToolResult(tt.want) {
				t.Fatalf("the model got %v", msgs.Messages())
			}
		})
	}
	for _, tt := range []struct {
		name        string
		posture     posture.Posture
		interactive bool
		auto        bool
	}{
		{"headless", posture.Ask, false, false},
		{"--auto", posture.Ask, true, true},
		{"full access", posture.FullAccess, true, false},
		{"auto-review", posture.AutoReview, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sh := newConfinedShell()
			h := rerunHarness(t, sh, tt.posture, tt.interactive, tt.auto)
			if cards := answerEach(h, true, "write outside"); len(cards) != 0 {
				t.Fatalf("%s was offered a run outside the sandbox: %+v", tt.name, cards)
			}
			if modes := sh.ran(); len(modes) != 1 || modes[0] != sandbox.WorkspaceWrite {
				t.Fatalf("ran under %v", modes)
			}
		})
	}
}

// answerEach sends the message as a turn and approves or denies every card.
func answerEach(h *harness, approve bool, msg string) []engine.ApprovalRequired {
	var cards []engine.ApprovalRequired
	h.eng.Submit(engine.SendMessage{Content: msg})
	h.collect(func(ev engine.Event) {
		if a, ok := ev.(engine.ApprovalRequired); ok {
			cards = append(cards, a)
			if approve {
				h.eng.Submit(engine.ApproveToolCall{ID: a.ID})
			} else {
				h.eng.Submit(engine.DenyToolCall{ID: a.ID})
			}
		}
	})
	return cards
}

// Under a read-only sandbox a shell-family card says approving cannot lift
// it (CONTRACT.md §12.7); a file write's card does not, since the write
// happens in-process and approving it does write.
func TestReadOnlySandboxNotesItOnTheCard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		caps []tools.Capability
		note bool
	}{
		{"shell-family", []tools.Capability{tools.CapExecutesCode, tools.CapSandboxable}, true},
		{"file write", []tools.Capability{tools.CapWritesFiles, tools.CapSandboxable}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := newGuarded(tools.Required)
			g.Caps = tc.caps
			srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "g1", Name: "Guarded", Args: `{"path":"x"}`}), fakemodel.Text("done"))
			h := newHarness(t, srv, func(o *engine.Options) {
				o.Posture, o.Interactive, o.AutoApprove = posture.Ask, true, false
				o.Sandbox = sandbox.New(sandbox.Policy{Mode: sandbox.ReadOnly}, sandbox.Options{})
				o.Tools = g.toolset
			})
			cards := answerEach(h, true, "go")
			noted := len(cards) == 1 && cards[0].SandboxReadOnly &&
				strings.HasSuffix(cards[0].Description, "approving runs the command without write access (approval cannot lift the sandbox)")
			if len(cards) != 1 || noted != tc.note || strings.Contains(cards[0].Description, "read-only for this session") != tc.note {
				t.Fatalf("cards %+v, want the read-only note: %v", cards, tc.note)
			}
		})
	}
}
