package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakeclock"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools/tasks"
	"github.com/codewhale/codewhale/internal/toolset"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/transcript"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// flow is the UI over a real engine talking to the fake model server,
// driven through a Bubble Tea program by teatest.
type flow struct {
	t     *testing.T
	tm    *teatest.TestModel
	clock *fakeclock.Clock
	srv   *fakemodel.Server
	eng   *engine.Engine
	ws    string
}

func newFlow(t *testing.T, srv *fakemodel.Server, opts ...func(*engine.Options)) *flow {
	t.Helper()
	ws := t.TempDir()
	svc := toolset.NewServices(toolset.Options{Workspace: ws, Home: t.TempDir(), SessionID: "s1", Model: "deepseek-v4-pro"})
	store, _, err := tasks.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	jm, err := jobs.NewManager(jobs.Options{Shell: "/bin/sh", KillGrace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(jm.Close)
	svc.Tasks, svc.Jobs = store, jm
	clock := fakeclock.At(t0)
	eo := engine.Options{Workspace: ws, Model: "deepseek-v4-pro", Interactive: true, Posture: posture.Ask,
		Mode: posture.Act, AllowShell: true, Tools: svc.Toolset, Clock: clock.Now,
		NewClient: func(model string) (*provider.Client, error) {
			return provider.New(provider.Config{BaseURL: srv.URL, Model: model, Retry: provider.RetryPolicy{}})
		}}
	for _, f := range opts {
		f(&eo)
	}
	eng := engine.New(eo)
	ctx, cancel := context.WithCancel(context.Background())
	go eng.Run(ctx)
	t.Cleanup(func() {
		cancel()
		for range eng.Events() {
		}
	})
	o := baseOptions(eng, clock)
	o.Workspace, o.Jobs, o.Posture = ws, jm, eo.Posture
	tm := teatest.NewTestModel(t, New(o), teatest.WithInitialTermSize(100, 30))
	return &flow{t: t, tm: tm, clock: clock, srv: srv, eng: eng, ws: ws}
}

func (f *flow) typeLine(s string) {
	f.tm.Type(s)
	f.tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
}

// waitFor reads the program's output until every substring has appeared
// in what this call read.
func (f *flow) waitFor(subs ...string) {
	f.t.Helper()
	teatest.WaitFor(f.t, f.tm.Output(), func(b []byte) bool {
		s := termtext.Strip(string(b))
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(15*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
}

// final quits and returns the model for state checks.
func (f *flow) final() *Model {
	f.t.Helper()
	f.tm.Send(tea.QuitMsg{})
	return f.tm.FinalModel(f.t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
}

func TestFlowPromptStreamsReasoningThenAnswer(t *testing.T) {
	reply := fakemodel.Text("Here is the **plan**:\n\n1. read\n2. edit")
	reply.Reasoning = "I should answer briefly."
	srv := fakemodel.New(t, reply)
	f := newFlow(t, srv)
	f.typeLine("hi")
	f.waitFor("✓ done")
	m := f.final()
	if got := m.tr.Last(transcript.Assistant); got == nil || !strings.Contains(got.Text(), "plan") {
		t.Fatalf("assistant cell = %v", got)
	}
	screen := termtext.Strip(m.View())
	if !strings.Contains(screen, "… reasoning done · 0s") || strings.Contains(screen, "answer briefly") {
		t.Errorf("reasoning is collapsed:\n%s", screen)
	}
	golden.RequireEqual(t, []byte(screen))
}

func taskCall() fakemodel.Reply {
	return fakemodel.Tools(fakemodel.Call{ID: "call_t", Name: "tasks", Args: `{"action":"create","prompt":"write the docs"}`})
}

func TestFlowApprovalDenyThenApprove(t *testing.T) {
	srv := fakemodel.New(t, taskCall(), fakemodel.Text("Understood, not creating it."),
		taskCall(), fakemodel.Text("Created."))
	f := newFlow(t, srv)
	f.typeLine("make a task")
	f.waitFor("approval", "▸ Deny this call", views.UnfocusedHint) // Enter was just pressed
	f.tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	f.tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	f.waitFor("denied by user", "✓ done")
	f.typeLine("make it after all")
	f.waitFor("approval", views.UnfocusedHint)
	f.tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	f.tm.Type("y")
	f.waitFor("✓ tasks create write the docs")
	m := f.final()
	var results []string
	for _, r := range srv.Requests() {
		for _, msg := range r.Messages() {
			if msg["role"] == "tool" {
				s, _ := msg["content"].(string)
				results = append(results, s)
			}
		}
	}
	if len(results) == 0 || !strings.Contains(results[0], "denied by user") {
		t.Errorf("the model saw %q", results)
	}
	if m.stack.TopApproval() != nil {
		t.Error("no card left open")
	}
}

// CONTRACT.md §11.6: after a request /tools json opens the pager titled 'Prepared Tool Request (JSON)' holding the
// snapshot.
func TestFlowToolsJSONAfterARequest(t *testing.T) {
	srv := fakemodel.New(t, fakemodel.Text("ok"))
	f := newFlow(t, srv)
	f.typeLine("hi")
	f.waitFor("✓ done")
	f.typeLine("/tools json")
	f.waitFor("Prepared Tool Request (JSON)")
	m := f.final()
	p, ok := m.stack.Top().(*views.Pager)
	if !ok {
		t.Fatalf("top view = %T", m.stack.Top())
	}
	var snap struct {
		SchemaVersion int      `json:"schema_version"`
		Unavailable   []string `json:"unavailable_for_this_request"`
		Digest        string   `json:"active_tool_catalog_sha256"`
	}
	if err := json.Unmarshal([]byte(p.Source()), &snap); err != nil {
		t.Fatalf("pager content is not JSON: %v\n%s", err, p.Source())
	}
	if snap.SchemaVersion != 1 || len(snap.Unavailable) == 0 || snap.Unavailable[0] != "provider_wire_payload" {
		t.Errorf("snapshot = %+v", snap)
	}
	sent := srv.Requests()[0].ToolNames()
	if len(sent) == 0 || snap.Digest == "" {
		t.Errorf("request tools %v, digest %q", sent, snap.Digest)
	}
}

func TestFlowEscMidStreamInterrupts(t *testing.T) {
	slow := fakemodel.Text(strings.Repeat("streaming text ", 400))
	slow.Delay = 2 * time.Millisecond
	srv := fakemodel.New(t, slow)
	f := newFlow(t, srv)
	f.typeLine("go")
	f.waitFor("streaming text streaming")
	f.tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	f.waitFor("Request cancelled", "⎿ interrupted")
	m := f.final()
	if c := m.tr.Last(transcript.Assistant); c == nil || !c.Interrupted || !strings.Contains(c.Text(), "streaming text") {
		t.Errorf("partial reply kept and marked interrupted: %+v", c)
	}
}

func TestFlowPlanModeTakesEffectOnTheNextRequest(t *testing.T) {
	srv := fakemodel.New(t, fakemodel.Text("act answer"), fakemodel.Text("plan answer"))
	f := newFlow(t, srv)
	f.typeLine("in act")
	f.waitFor("● act answer")
	f.typeLine("/mode plan")
	f.waitFor("Switched to Plan mode.", "read only")
	f.typeLine("in plan")
	f.waitFor("● plan answer")
	f.final()
	reqs := srv.Requests()
	act, plan := strings.Join(reqs[0].ToolNames(), ","), strings.Join(reqs[1].ToolNames(), ",")
	if !strings.Contains(act, "Bash") || !strings.Contains(act, "Run") {
		t.Errorf("act request tools: %s", act)
	}
	if strings.Contains(plan, "Bash") || strings.Contains(plan, "Run") || !strings.Contains(plan, "File") {
		t.Errorf("plan request tools: %s", plan)
	}
}

// A call the user denied, repeated exactly, is denied without a second
// card (CONTRACT.md §14.6); a different call still asks.
func TestFlowRepeatedDeniedCallIsDeniedWithoutACard(t *testing.T) {
	args := `{"command":"touch denied.txt"}`
	again := fakemodel.Tools(fakemodel.Call{ID: "c2", Name: "Bash", Args: args})
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "c1", Name: "Bash", Args: args}), again,
		fakemodel.Tools(fakemodel.Call{ID: "c3", Name: "Bash", Args: `{"command":"touch other.txt"}`}))
	f := newFlow(t, srv)
	f.typeLine("touch it")
	f.waitFor("approval", "Command: touch denied.txt", views.UnfocusedHint)
	f.tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	f.tm.Type("n")
	f.waitFor("Command: touch other.txt") // the second card is for the different call
	m := f.final()
	denied := 0
	for _, r := range srv.Requests() {
		if r.HasToolResult("denied by user") {
			denied++
		}
	}
	if len(srv.Requests()) != 3 || denied != 2 {
		t.Errorf("requests %d, with a denial %d; want the repeat denied without asking", len(srv.Requests()), denied)
	}
	if a := m.stack.TopApproval(); a == nil || !strings.Contains(string(a.Req.Input), "other.txt") {
		t.Errorf("open card = %+v", a)
	}
}
