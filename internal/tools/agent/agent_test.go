package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/app"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/tools/plan"
)

var fast = provider.RetryPolicy{Enabled: true, MaxRetries: 1, InitialDelay: time.Millisecond, MaxDelay: time.Millisecond}

// spawner runs real child engines against srv through the app layer's
// adapter, each with its own update_plan store so the test can see what
// every child did.
func spawner(t *testing.T, srv *fakemodel.Server, stores *[]*plan.Store, built *atomic.Int32) agent.Spawner {
	var mu sync.Mutex
	return agent.SpawnFunc(func(ctx context.Context, cfg agent.ChildConfig) (agent.Run, error) {
		built.Add(1)
		store := &plan.Store{}
		if stores != nil {
			mu.Lock()
			*stores = append(*stores, store)
			mu.Unlock()
		}
		mode := posture.Act
		if cfg.ReadOnly {
			mode = posture.Plan
		}
		eng := engine.New(engine.Options{
			Workspace: t.TempDir(), Model: "deepseek-v4-pro", Mode: mode, MaxSteps: cfg.MaxSteps, AutoApprove: true,
			NewClient: func(model string) (*provider.Client, error) {
				return provider.New(provider.Config{BaseURL: srv.URL, Model: model, Retry: fast})
			},
			Tools: func(engine.TurnEnv) engine.Toolset {
				reg := tools.NewRegistry()
				reg.Register(plan.New(store))
				return engine.Toolset{Registry: reg}
			},
		})
		go eng.Run(ctx)
		return app.EngineRun{Engine: eng}, nil
	})
}

func call(t *testing.T, tool tools.Tool, in string) (tools.Result, error) {
	t.Helper()
	return tools.Execute(context.Background(), tool, &tools.Context{Mode: posture.Act}, json.RawMessage(in))
}

func TestChildRunsItsOwnToolsAndReportsBack(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		switch {
		case r.HasToolResult("Plan updated"):
			return fakemodel.Text("Child finished: plan published.")
		case strings.Contains(r.LastUserText(), "publish a plan"):
			return fakemodel.Tools(fakemodel.Call{Name: "update_plan", Args: `{"objective":"child objective"}`})
		}
		return fakemodel.Text("unexpected")
	})
	var stores []*plan.Store
	var built atomic.Int32
	dir := t.TempDir()
	m := agent.NewManager(agent.Options{Spawner: spawner(t, srv, &stores, &built), TranscriptDir: dir})
	// Settle every record before the temporary directory is removed.
	t.Cleanup(func() { m.Drain(context.Background(), 0, 5*time.Second) })
	tool := agent.New(m, nil)
	res, err := call(t, tool, `{"prompt":"publish a plan","type":"scout"}`)
	if err != nil {
		t.Fatal(err)
	}
	var receipt map[string]any
	if err := json.Unmarshal([]byte(res.Content), &receipt); err != nil {
		t.Fatal(err)
	}
	id, _ := receipt["agent_id"].(string)
	handle, _ := receipt["transcript_handle"].(map[string]any)
	if !strings.HasPrefix(id, "agent_") || len(id) != len("agent_")+8 || handle["kind"] != "var_handle" || handle["session_id"] != "agent:"+id {
		t.Fatalf("receipt %s", res.Content)
	}
	if _, settled := m.Wait(context.Background(), []string{id}, "completion", 20*time.Second); !settled {
		t.Fatal("child did not finish")
	}
	notice := m.Completed()
	if !strings.Contains(notice, `<codewhale:subagent.done agent_id="`+id+`" status="completed">`) ||
		!strings.Contains(notice, "Child finished: plan published.") || m.Completed() != "" {
		t.Errorf("completion notice %q", notice)
	}
	res, err = call(t, tool, `{"action":"wait","agent_id":"`+id+`","timeout_secs":20}`)
	if err != nil || !strings.Contains(res.Content, `"settled":true`) || !strings.Contains(res.Content, "Child finished: plan published.") {
		t.Fatalf("wait: %v %s", err, res.Content)
	}
	if stores[0].Get().Objective != "child objective" {
		t.Error("the child's tool call did not run in the child")
	}
	read := agent.NewHandleRead(m)
	res, err = call(t, read, `{"session_id":"agent:`+id+`"}`)
	if err != nil || !strings.Contains(res.Content, "[assistant tool_use") || !strings.Contains(res.Content, "Plan updated") {
		t.Errorf("handle_read: %v %s", err, res.Content)
	}
	// A fresh manager over the same directory still reads the saved transcript.
	m2 := agent.NewManager(agent.Options{Spawner: spawner(t, srv, nil, &built), TranscriptDir: dir})
	if text, err := m2.Transcript(id); err != nil || !strings.Contains(text, "child objective") {
		t.Errorf("saved transcript: %v", err)
	}
}

func TestBadActionsAndFields(t *testing.T) {
	t.Parallel()
	m := agent.NewManager(agent.Options{Spawner: agent.SpawnFunc(func(context.Context, agent.ChildConfig) (agent.Run, error) {
		return nil, fmt.Errorf("unused")
	})})
	tool := agent.New(m, nil)
	cases := map[string]string{
		`{"action":"dance"}`:                 "Invalid agent action 'dance'. Use start, status, peek, message, followup, interrupt, wait, cancel, or cleanup.",
		`{"op":"STOP"}`:                      "Tool 'agent' is missing required field 'agent_id'",
		`{"action":"peek","id":"nope"}`:      `no sub-agent "nope"`,
		`{"prompt":"x","isolation":"tree"}`:  "unknown agent field `isolation`",
		`{"action":"start"}`:                 "missing required field 'prompt'",
		`{"prompt":"x","type":"nosuchtype"}`: `at /type: value must be one of "worker"`,
	}
	for in, want := range cases {
		_, err := call(t, tool, in)
		if err == nil || !strings.Contains(tools.AsError(err).Render("agent"), want) {
			t.Errorf("%s: %v", in, err)
		}
	}
}

func TestAdmissionLimitQueuesThenRefuses(t *testing.T) {
	t.Parallel()
	// A barrier in the fake model: each child's request waits until 64 are
	// in flight at once, so the test proves the default concurrency is
	// really reached, then the children stall until they are cancelled.
	srv := fakemodel.New(t)
	var inflight atomic.Int32
	all := make(chan struct{})
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
		if inflight.Add(1) == 64 {
			close(all)
		}
		select {
		case <-all:
		case <-time.After(30 * time.Second):
		}
		return fakemodel.Reply{Text: "slow", Stall: true}
	})
	var built atomic.Int32
	m := agent.NewManager(agent.Options{Spawner: spawner(t, srv, nil, &built)})
	defer m.Shutdown()
	concurrent, admitted := m.Limits()
	if concurrent != 64 || admitted != 1024 {
		t.Fatalf("defaults %d/%d", concurrent, admitted)
	}
	tool := agent.New(m, nil)
	var ok, refused int
	var lastErr string
	for i := 0; i < 2000; i++ {
		res, err := call(t, tool, `{"prompt":"wait forever","type":"scout"}`)
		switch {
		case err != nil:
			t.Fatal(err)
		case res.Success:
			ok++
		default:
			refused++
			lastErr = res.Content
		}
	}
	if ok != 1024 || refused != 976 {
		t.Errorf("admitted %d, refused %d", ok, refused)
	}
	if !strings.HasPrefix(lastErr, "Sub-agent admission limit reached (max_admitted 1024, admitted 1024,") {
		t.Errorf("refusal %q", lastErr)
	}
	select {
	case <-all:
	case <-time.After(30 * time.Second):
		t.Fatalf("only %d children ever ran at once; want 64", inflight.Load())
	}
	// The 64 in flight hold every slot: nothing else may start, the rest
	// stay queued.
	if running, queued := m.Counts(); running != 64 || queued != 960 || inflight.Load() != 64 {
		t.Fatalf("running %d queued %d in flight %d", running, queued, inflight.Load())
	}
	if n := m.CancelAll(); n != 1024 {
		t.Errorf("cancelled %d", n)
	}
	snaps, settled := m.Wait(context.Background(), nil, "all", 20*time.Second)
	if !settled {
		t.Fatalf("children did not settle after cancel: %d", len(snaps))
	}
	if built.Load() != 64 || inflight.Load() != 64 {
		t.Errorf("%d runs built, %d requests; queued children must not start after cancel", built.Load(), inflight.Load())
	}
}

// README.md "Tools": agent runs 64 sub-agents at once and admits 1,024 by default.
func TestLimitsClamp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ conc, adm, wantC, wantA int }{{0, 0, 64, 1024}, {500, 5000, 128, 1024}, {10, 5, 10, 10}, {-3, 0, 64, 1024}} {
		m := agent.NewManager(agent.Options{MaxConcurrent: c.conc, MaxAdmitted: c.adm})
		if gc, ga := m.Limits(); gc != c.wantC || ga != c.wantA {
			t.Errorf("%d/%d -> %d/%d", c.conc, c.adm, gc, ga)
		}
	}
	if agent.DefaultMaxSubagents != 64 || agent.MaxSubagents != 128 || agent.MaxSubagentAdmission != 1024 {
		t.Error("capacity constants")
	}
}

// A child that finishes before the parent calls wait (with no id) is still
// reported by that wait, once; a second wait has nothing left to report.
func TestWaitReportsAChildThatFinishedBeforeTheCall(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Text("child report") })
	var built atomic.Int32
	m := agent.NewManager(agent.Options{Spawner: spawner(t, srv, nil, &built)})
	defer m.Shutdown()
	tool := agent.New(m, nil)
	res, err := call(t, tool, `{"prompt":"look around","type":"scout"}`)
	if err != nil {
		t.Fatal(err)
	}
	var receipt struct {
		ID string `json:"agent_id"`
	}
	if err := json.Unmarshal([]byte(res.Content), &receipt); err != nil {
		t.Fatal(err)
	}
	// Settle the child without telling the parent (the manager's own wait).
	if _, settled := m.Wait(context.Background(), []string{receipt.ID}, "completion", 20*time.Second); !settled {
		t.Fatal("child did not finish")
	}
	res, err = call(t, tool, `{"action":"wait","timeout_secs":5}`)
	if err != nil || !strings.Contains(res.Content, receipt.ID) || !strings.Contains(res.Content, "child report") {
		t.Fatalf("wait after the child finished: %v %s", err, res.Content)
	}
	if n := m.Completed(); n != "" {
		t.Errorf("the wait reported the child; the notice must not repeat it: %q", n)
	}
	res, err = call(t, tool, `{"action":"wait","timeout_secs":5}`)
	if err != nil || strings.Contains(res.Content, receipt.ID) {
		t.Errorf("second wait: %v %s", err, res.Content)
	}
}
