package posture_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/permissions"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/toolset"
)

// kind is the approval a call needs as the engine sees it: the tool's own
// (Auto, Suggest, Required, Explicit) or a hold a permission rule's `ask`
// puts on an ordinary call.
type kind int

const (
	kAuto kind = iota
	kSuggest
	kRequired
	kExplicit
	kHold
)

var kindNames = [...]string{"Auto", "Suggest", "Required", "Explicit", "Hold"}

// host is who can answer a prompt: a person (the TUI), no one (exec), or
// no one with --auto.
type host int

const (
	interactive host = iota
	headless
	autoApprove
)

var hostNames = [...]string{"interactive", "headless", "--auto"}

func (h host) posture() posture.Host {
	return posture.Host{Interactive: h == interactive, AutoApprove: h == autoApprove}
}

// outcome is one cell of CONTRACT.md §12.6's table.
type outcome struct {
	disp posture.Disposition
	// want is in the refusal the model reads ("" when the call runs).
	want string
}

const reason = "writes .git/config, which decides what git runs"

// contractCell is CONTRACT.md §12.6's table, written out from the document
// cell by cell: posture × host × the approval a call needs.
func contractCell(p posture.Posture, h host, k kind) outcome {
	run := outcome{disp: posture.AutoApprove}
	if k == kAuto {
		return run // Auto tools never prompt, in every posture and host
	}
	suffix := ""
	switch k {
	case kExplicit:
		suffix = ". It needs explicit approval: " + reason + "."
	case kHold:
		suffix = ". It needs explicit approval: the permission rule "
	}
	switch p {
	case posture.AutoReview:
		if k == kSuggest {
			return run
		}
		return outcome{posture.HeldAutoReview, "Auto-Review held tool 'Guarded' without pausing" + suffix}
	case posture.FullAccess:
		if k == kHold {
			return outcome{posture.BlockedFullAccess, "is blocked in Full Access"}
		}
		return run
	case posture.Never:
		return outcome{posture.DeniedNever, "Blocked tool 'Guarded' (approval_mode=never)" + suffix}
	}
	switch {
	case h == interactive:
		return outcome{disp: posture.Prompt}
	case h == autoApprove && k <= kRequired:
		return run
	case k >= kExplicit:
		return outcome{posture.DeniedHeadless, "Tool 'Guarded' needs explicit approval (approval_required)" + suffix}
	}
	return outcome{posture.DeniedHeadless, "Tool 'Guarded' needs approval (approval_required) and this headless run cannot ask"}
}

var needs = map[kind]posture.Need{kSuggest: posture.NeedSuggest, kRequired: posture.NeedRequired,
	kExplicit: posture.NeedExplicit, kHold: posture.NeedHold}

var postures = []posture.Posture{posture.Ask, posture.AutoReview, posture.FullAccess, posture.Never}

// CONTRACT.md §12.6: posture.Decide, the one definition of the table, gives
// every posture × host × need the disposition the contract's table states.
// README.md "Modes and permissions": the command-class table's ordinary and explicit rows: what Ask, Auto-Review, exec, exec --auto, Full Access and Never do with each.
func TestContract12_6DecideIsTheTable(t *testing.T) {
	t.Parallel()
	for _, p := range postures {
		for h := interactive; h <= autoApprove; h++ {
			for k := kSuggest; k <= kHold; k++ {
				want := contractCell(p, h, k).disp
				if got := posture.Decide(p, needs[k], h.posture()); got != want {
					t.Errorf("Decide(%v, %s, %s) = %v, want %v", p, kindNames[k], hostNames[h], got, want)
				}
			}
		}
	}
}

// CONTRACT.md §12.6: Ask is the default, never is config only (Shift+Tab
// never reaches it), and --auto never widens a posture: a host that may
// auto-approve gets no call through that the same posture without it
// would refuse outright.
// README.md "Modes and permissions": Ask is the default, approval_policy = "never" is config only (Shift+Tab never reaches it), and --auto never widens a posture.
func TestContract12_6DefaultsAndAutoNeverWidens(t *testing.T) {
	t.Parallel()
	if p, err := posture.Parse(""); err != nil || p != posture.Ask {
		t.Errorf(`Parse("") = %v, %v; the default is Ask`, p, err)
	}
	for _, p := range posture.All {
		if p == posture.Never || p.Next() == posture.Never {
			t.Errorf("the Shift+Tab cycle reaches never via %v", p)
		}
	}
	for _, p := range postures {
		for k := kSuggest; k <= kHold; k++ {
			with, without := posture.Decide(p, needs[k], autoApprove.posture()), posture.Decide(p, needs[k], headless.posture())
			if with == posture.AutoApprove && without != posture.AutoApprove && without != posture.DeniedHeadless {
				t.Errorf("%v %s: --auto approves what the posture refuses (%v)", p, kindNames[k], without)
			}
		}
	}
}

// guarded is a tool whose every call needs the given approval; it counts
// the calls that really ran.
type guarded struct {
	tools.Spec
	need tools.Approval
	ran  atomic.Int32
}

func (g *guarded) Prepare(in json.RawMessage) (*tools.Call, error) {
	p := tools.Policy{Approval: g.need}
	if g.need == tools.Explicit {
		p.Reason = reason
	}
	return tools.NewCall(in, p, func(context.Context, *tools.Context) (tools.Result, error) {
		g.ran.Add(1)
		return tools.OK("wrote it"), nil
	}), nil
}

func (g *guarded) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, g, tc, in)
}

var toolApproval = map[kind]tools.Approval{kAuto: tools.Auto, kSuggest: tools.Suggest, kRequired: tools.Required,
	kExplicit: tools.Explicit, kHold: tools.Required}

// startEngine runs one engine on srv until the test ends.
func startEngine(t *testing.T, srv *fakemodel.Server, opts engine.Options) *engine.Engine {
	t.Helper()
	opts.Model = "deepseek-v4-pro"
	opts.NewClient = func(model string) (*provider.Client, error) {
		return provider.New(provider.Config{BaseURL: srv.URL, Model: model, Retry: provider.RetryPolicy{Enabled: true,
			MaxRetries: 3, InitialDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, ExponentialBase: 2}})
	}
	opts.Clock = func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }
	e := engine.New(opts)
	ctx, cancel := context.WithCancel(context.Background())
	go e.Run(ctx)
	t.Cleanup(func() {
		cancel()
		for range e.Events() {
		}
	})
	return e
}

// turn sends prompt and answers every card with answer, returning the
// cards, the results in order and the TurnComplete.
func turn(t *testing.T, e *engine.Engine, answer engine.ApproveToolCall) ([]engine.ApprovalRequired, []engine.ToolCallComplete, engine.TurnComplete) {
	t.Helper()
	e.Submit(engine.SendMessage{Content: "go"})
	var cards []engine.ApprovalRequired
	var results []engine.ToolCallComplete
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-e.Events():
			switch ev := ev.(type) {
			case engine.ApprovalRequired:
				cards = append(cards, ev)
				answer.ID = ev.ID
				e.Submit(answer)
			case engine.ToolCallComplete:
				results = append(results, ev)
			case engine.TurnComplete:
				return cards, results, ev
			}
		case <-timeout:
			t.Fatal("the turn did not complete")
		}
	}
}

// CONTRACT.md §12.6: every posture × host × approval kind, run through the
// engine, does what the contract's table says — a prompt opens a card (with
// no session grant for an explicit approval or a hold: the second call of
// the same kind asks again), an approval runs the call, and every refusal
// reads as the contract words it, with the reason of an explicit approval
// and approval_required where a headless run could not ask.
func TestContract12_6EveryPostureHostAndKind(t *testing.T) {
	t.Parallel()
	for _, p := range postures {
		for h := interactive; h <= autoApprove; h++ {
			for k := kAuto; k <= kHold; k++ {
				t.Run(p.Value()+"/"+hostNames[h]+"/"+kindNames[k], func(t *testing.T) {
					t.Parallel()
					checkCell(t, p, h, k)
				})
			}
		}
	}
}

func checkCell(t *testing.T, p posture.Posture, h host, k kind) {
	g := &guarded{need: toolApproval[k], Spec: tools.Spec{ToolName: "Guarded", Desc: "test tool",
		Schema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}}}
	rulesFile := filepath.Join(t.TempDir(), permissions.FileName)
	if k == kHold {
		if err := os.WriteFile(rulesFile, []byte("[[rules]]\naction = \"ask\"\ntool = \"Guarded\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rules, err := permissions.Load(rulesFile, "")
	if err != nil {
		t.Fatal(err)
	}
	srv := fakemodel.New(t, fakemodel.Tools(
		fakemodel.Call{ID: "g1", Name: "Guarded", Args: `{"path":"a"}`},
		fakemodel.Call{ID: "g2", Name: "Guarded", Args: `{"path":"b"}`}), fakemodel.Text("done"))
	e := startEngine(t, srv, engine.Options{Workspace: t.TempDir(), Posture: p, Interactive: h == interactive,
		AutoApprove: h == autoApprove, Permissions: rules, Tools: func(engine.TurnEnv) engine.Toolset {
			reg := tools.NewRegistry()
			reg.Register(g)
			return engine.Toolset{Registry: reg}
		}})
	// A person who answers "allow for this session" to every card.
	cards, results, done := turn(t, e, engine.ApproveToolCall{ForSession: true})
	want := contractCell(p, h, k)
	wantCards := 0
	if want.disp == posture.Prompt {
		wantCards = 1 // the session grant covers the second call
		if k >= kExplicit {
			wantCards = 2 // never approved for the session
		}
	}
	if len(cards) != wantCards {
		t.Fatalf("%d cards, want %d", len(cards), wantCards)
	}
	for _, c := range cards {
		if c.ForcePrompt != (k >= kExplicit) {
			t.Errorf("card ForcePrompt = %v: an explicit approval or a hold offers no session grant, an ordinary call does", c.ForcePrompt)
		}
		if k == kExplicit && c.Reason != reason {
			t.Errorf("card reason %q, want %q", c.Reason, reason)
		}
	}
	runs := want.disp == posture.AutoApprove || want.disp == posture.Prompt
	if got := g.ran.Load(); (got == 2) != runs || got != 0 && got != 2 {
		t.Fatalf("ran %d of 2 calls; want them to run: %v (results %+v)", got, runs, results)
	}
	if len(results) != 2 {
		t.Fatalf("%d results for 2 calls", len(results))
	}
	for _, r := range results {
		if runs != (r.Result.Content == "wrote it") || !runs && !strings.Contains(r.Result.Content, want.want) {
			t.Errorf("result %q, want %q", r.Result.Content, want.want)
		}
	}
	if done.ApprovalRequired != (want.disp == posture.DeniedHeadless) {
		t.Errorf("approval_required = %v, want %v", done.ApprovalRequired, want.disp == posture.DeniedHeadless)
	}
}

// CONTRACT.md §12.6: Plan caps everything to read-only whatever the
// posture — under Full Access with --auto, a Plan turn's File write and
// Bash command are refused and nothing is written.
// README.md "Modes and permissions": Plan is read-only: under Full Access with --auto a Plan turn's File write and Bash command are refused.
func TestContract12_6PlanCapsFullAccess(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	svc := toolset.NewServices(toolset.Options{Workspace: ws})
	srv := fakemodel.New(t, fakemodel.Tools(
		fakemodel.Call{ID: "w", Name: "File", Args: `{"action":"write","path":"planned.txt","content":"x"}`},
		fakemodel.Call{ID: "b", Name: "Bash", Args: `{"action":"run","command":"touch bashed.txt"}`}), fakemodel.Text("done"))
	e := startEngine(t, srv, engine.Options{Workspace: ws, Mode: posture.Plan, Posture: posture.FullAccess,
		AutoApprove: true, AllowShell: true, Trust: true, Tools: svc.Toolset})
	cards, results, _ := turn(t, e, engine.ApproveToolCall{})
	if len(cards) != 0 || len(results) != 2 {
		t.Fatalf("%d cards, %d results", len(cards), len(results))
	}
	for _, r := range results {
		if r.Result.Success {
			t.Errorf("Plan ran %s: %q", r.ID, r.Result.Content)
		}
	}
	for _, f := range []string{"planned.txt", "bashed.txt"} {
		if _, err := os.Stat(filepath.Join(ws, f)); !os.IsNotExist(err) {
			t.Errorf("Plan under Full Access wrote %s (%v)", f, err)
		}
	}
}
