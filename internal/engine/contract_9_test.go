package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/toolset"
)

// Tests of the turn loop's batch, end and retry claims (docs/CONTRACT.md
// §9.7–§9.12) that no other test pins.

// runLog records when the calls of a batch start and end, how many run at
// once, and how many others each running call has seen beside it.
type runLog struct {
	mu     sync.Mutex
	active map[string]*int // running call → calls seen beside it
	peak   int
	events []string
}

// start logs id's start and returns how many calls run now, itself included.
func (l *runLog) start(id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.active == nil {
		l.active = map[string]*int{}
	}
	seen := len(l.active)
	for _, n := range l.active {
		*n++
	}
	l.active[id] = &seen
	l.peak = max(l.peak, len(l.active))
	l.events = append(l.events, "start:"+id)
	return len(l.active)
}

func (l *runLog) end(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.active, id)
	l.events = append(l.events, "end:"+id)
}

// seen is how many calls ran beside id since it started.
func (l *runLog) seen(id string) int { l.mu.Lock(); defer l.mu.Unlock(); return *l.active[id] }

func (l *runLog) snapshot() ([]string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events), l.peak
}

// loggedTool runs a call {"id": …, "hold": n}: it logs its start and end,
// and with hold > 0 waits (up to 3 s) until it has run beside n-1 other
// calls — which only calls run side by side ever do. A call with hold 0
// fails when another runs beside it.
type loggedTool struct {
	tools.Spec
	log *runLog
}

func (lt *loggedTool) Execute(_ context.Context, _ *tools.Context, in json.RawMessage) (tools.Result, error) {
	var a struct {
		ID   string
		Hold int
	}
	_ = json.Unmarshal(in, &a)
	now := lt.log.start(a.ID)
	defer lt.log.end(a.ID)
	if a.Hold == 0 && now != 1 {
		return tools.Failed(fmt.Sprintf("%s ran beside %d other call(s)", a.ID, now-1)), nil
	}
	for deadline := time.Now().Add(3 * time.Second); lt.log.seen(a.ID) < a.Hold-1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			return tools.Failed(a.ID + " waited alone for its group"), nil
		}
	}
	return tools.OK("ran " + a.ID), nil
}

// loggedTools is a harness option whose registry holds the logged tools:
// Reader (read-only, parallel-safe), Writer (neither), Starter (a detached
// start) and AskReader (a parallel-safe reader that needs approval).
func loggedTools(log *runLog) func(*engine.Options) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"id": map[string]any{"type": "string"}, "hold": map[string]any{"type": "integer"}}}
	reader := []tools.Capability{tools.CapReadOnly}
	specs := []tools.Spec{
		{ToolName: "Reader", Desc: "reads", Schema: schema, Caps: reader, ReadOnly: true, Parallel: true},
		{ToolName: "Writer", Desc: "writes", Schema: schema, Caps: []tools.Capability{tools.CapWritesFiles}},
		{ToolName: "Starter", Desc: "starts", Schema: schema, StartDetach: true},
		{ToolName: "AskReader", Desc: "reads after asking", Schema: schema, Caps: reader, ReadOnly: true, Parallel: true,
			Approve: tools.Required},
	}
	return func(o *engine.Options) {
		for _, s := range specs {
			o.AlwaysLoad = append(o.AlwaysLoad, s.ToolName)
		}
		o.Tools = func(engine.TurnEnv) engine.Toolset {
			reg := tools.NewRegistry()
			for _, s := range specs {
				reg.Register(&loggedTool{Spec: s, log: log})
			}
			return engine.Toolset{Registry: reg}
		}
	}
}

func logged(name, id string, hold int) fakemodel.Call {
	return fakemodel.Call{ID: id, Name: name, Args: fmt.Sprintf(`{"id":%q,"hold":%d}`, id, hold)}
}

// toolMessageIDs are the tool_call_ids of a request's tool messages, in
// order.
func toolMessageIDs(r *fakemodel.Request) []string {
	var ids []string
	for _, m := range r.Messages() {
		if m["role"] == "tool" {
			id, _ := m["tool_call_id"].(string)
			ids = append(ids, id)
		}
	}
	return ids
}

func statuses(evs []engine.Event) []string {
	var out []string
	for _, s := range all[engine.Status](evs) {
		out = append(out, s.Message)
	}
	return out
}

// CONTRACT.md §9.8: consecutive read-only parallel-safe calls (and detached starts) form a parallel group that runs
// side by side; a write between them runs alone, in order, and splits the batch into two chunks with the exact
// status.
func TestParallelGroupsRunSideBySideAndWritesAlone(t *testing.T) {
	t.Parallel()
	log := &runLog{}
	srv := fakemodel.New(t, fakemodel.Tools(
		logged("Reader", "r1", 2), logged("Reader", "r2", 2),
		logged("Writer", "w", 0),
		logged("Reader", "r3", 2), logged("Starter", "s1", 2),
	), fakemodel.Text("done"))
	h := newHarness(t, srv, loggedTools(log))
	evs := h.turn("go")
	if !slices.Contains(statuses(evs), "Executing 4 read-only tools in 2 parallel chunk(s)") {
		t.Errorf("statuses %q", statuses(evs))
	}
	for _, r := range all[engine.ToolCallComplete](evs) {
		if !r.Result.Success {
			t.Errorf("%s: %s", r.ID, r.Result.Content)
		}
	}
	events, peak := log.snapshot()
	if peak != 2 {
		t.Errorf("peak concurrency %d, want 2 (events %v)", peak, events)
	}
	// The write starts after the first group ended and ends before the
	// second group starts.
	at := func(ev string) int { return slices.Index(events, ev) }
	if w := at("start:w"); w < at("end:r1") || w < at("end:r2") || at("end:w") > at("start:r3") || at("end:w") > at("start:s1") {
		t.Errorf("the write did not run alone between the groups: %v", events)
	}
	if got := strings.Join(toolMessageIDs(srv.Requests()[1]), ","); got != "r1,r2,w,r3,s1" {
		t.Errorf("tool results %s, want call order", got)
	}
}

// CONTRACT.md §9.8: a parallel-safe read that needs approval is not in a parallel group: such calls run alone, in
// order, under the exact sequential status.
func TestCallsNeedingApprovalRunOneAtATime(t *testing.T) {
	t.Parallel()
	log := &runLog{}
	srv := fakemodel.New(t, fakemodel.Tools(logged("AskReader", "a", 0), logged("AskReader", "b", 0), logged("AskReader", "c", 0)),
		fakemodel.Text("done"))
	h := newHarness(t, srv, loggedTools(log)) // --auto: the calls are approved without a card
	evs := h.turn("go")
	if !slices.Contains(statuses(evs), "Executing tools sequentially (writes, approvals, or non-parallel tools detected)") {
		t.Errorf("statuses %q", statuses(evs))
	}
	for _, r := range all[engine.ToolCallComplete](evs) {
		if !r.Result.Success {
			t.Errorf("%s: %s", r.ID, r.Result.Content)
		}
	}
	if events, _ := log.snapshot(); strings.Join(events, " ") != "start:a end:a start:b end:b start:c end:c" {
		t.Errorf("events %v", events)
	}
}

// CONTRACT.md §9.7: malformed arguments are refused before the deny list, and the deny and allow lists before
// Prepare validates the input.
func TestGateOrderMalformedThenListsThenPrepare(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		allow, deny []string
		args, want  string
	}{
		{"malformed before deny", nil, []string{"update_plan"}, `{"objective": `, "the tool arguments are not valid JSON"},
		{"deny before Prepare", nil, []string{"update_plan"}, `{"objective": 5}`, "Tool 'update_plan' is in the disallowed-tools list"},
		{"allow before Prepare", []string{"File"}, nil, `{"objective": 5}`,
			"Tool 'update_plan' is not in the allowed-tools list for the current command"},
		// CONTRACT.md §9.7: the unknown-name text comes first, whatever the lists say.
		{"unknown name before malformed and deny", nil, []string{"Nosuch"}, `{"objective": `, "tool 'Nosuch' is not registered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := "update_plan"
			if strings.HasPrefix(tc.name, "unknown") {
				name = "Nosuch"
			}
			srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "p", Name: name, Args: tc.args}), fakemodel.Text("ok"))
			h := newHarness(t, srv, func(o *engine.Options) { o.AllowTools, o.DenyTools = tc.allow, tc.deny })
			res := all[engine.ToolCallComplete](h.turn("go"))
			if len(res) != 1 || !res[0].Result.IsError || !strings.Contains(res[0].Result.Content, tc.want) {
				t.Errorf("results %+v, want %q", res, tc.want)
			}
		})
	}
}

// CONTRACT.md §9.7: the Plan-mode gates come before posture and approval: a write refused in Plan opens no card,
// even in an interactive Ask session.
func TestPlanGateRefusesBeforeAnyCard(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "w", Name: "File", Args: `{"action":"write","path":"x.txt","content":"x"}`}),
		fakemodel.Text("ok"))
	h := newHarness(t, srv, func(o *engine.Options) {
		o.Mode, o.Posture, o.Interactive, o.AutoApprove = posture.Plan, posture.Ask, true, false
	})
	evs := h.collectAfter(engine.SendMessage{Content: "write"}, func(ev engine.Event) {
		if a, ok := ev.(engine.ApprovalRequired); ok {
			t.Errorf("a card opened for a call Plan refuses: %+v", a)
			h.eng.Submit(engine.DenyToolCall{ID: a.ID})
		}
	})
	res := all[engine.ToolCallComplete](evs)
	if len(res) != 1 || !res[0].Result.IsError || !strings.Contains(res[0].Result.Content, "unavailable in the current mode") {
		t.Errorf("results %+v", res)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "x.txt")); err == nil {
		t.Error("Plan mode wrote the file")
	}
}

// CONTRACT.md §9.9: the history keeps a refusal as 'Error: <text>' with is_error set and a tool-reported failure as
// its content without it, one result per call in call order; then the status 'Continuing — tool results' precedes
// the next step.
func TestResultsInTheHistoryAndTheContinuingStatus(t *testing.T) {
	t.Parallel()
	probe := &channels{tools.Spec{ToolName: "Probe", Desc: "probe", ReadOnly: true, Caps: []tools.Capability{tools.CapReadOnly},
		Schema: map[string]any{"type": "object", "properties": map[string]any{"how": map[string]any{"type": "string"}}}}}
	srv := fakemodel.New(t, fakemodel.Tools(
		fakemodel.Call{ID: "f", Name: "Probe", Args: `{"how":"failed"}`},
		fakemodel.Call{ID: "r", Name: "Probe", Args: `{"how":"refused"}`},
		fakemodel.Call{ID: "ok", Name: "Probe", Args: `{"how":"fine"}`},
	), fakemodel.Text("done"))
	h := newHarness(t, srv, func(o *engine.Options) {
		o.AlwaysLoad = []string{"Probe"}
		o.Tools = func(engine.TurnEnv) engine.Toolset {
			reg := tools.NewRegistry()
			reg.Register(probe)
			return engine.Toolset{Registry: reg}
		}
	})
	evs := h.turn("go")
	type got struct {
		id, content string
		isError     bool
	}
	var results []got
	for _, m := range h.eng.Snapshot().Messages {
		for _, b := range m.Content {
			if b.Type == provider.BlockToolResult {
				results = append(results, got{b.ToolUseID, b.Content, b.IsError})
			}
		}
	}
	want := []got{{"f", "exit status 3", false}, {"r", "Error: could not start: no such program", true}, {"ok", "all good", false}}
	if !slices.Equal(results, want) {
		t.Errorf("history results\n got %+v\nwant %+v", results, want)
	}
	// The status follows the last result and precedes the next request.
	lastDone, cont, nextSnap := -1, -1, -1
	for i, ev := range evs {
		switch ev := ev.(type) {
		case engine.ToolCallComplete:
			lastDone = i
		case engine.Status:
			if ev.Message == "Continuing — tool results" && cont < 0 {
				cont = i
			}
		case engine.ToolRequestSnapshot:
			if ev.Snapshot.Step == 1 {
				nextSnap = i
			}
		}
	}
	if !(lastDone >= 0 && lastDone < cont && cont < nextSnap) {
		t.Errorf("last result at %d, continuing status at %d, next step's snapshot at %d: %v", lastDone, cont, nextSnap, describe(evs))
	}
}

// CONTRACT.md §9.9: the per-call result budget is 48000 characters on a route with a window of at least 500000
// tokens and 12000 below it.
// README.md "Tools": the result budget is 48,000 characters on a window of at least 500,000 tokens and 12,000 below.
func TestResultBudgetThresholdIsAWindowOf500000(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ window, budget int }{{500000, 48000}, {499999, 12000}} {
		t.Run(fmt.Sprint(tc.window), func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "h1", Name: "Huge", Args: `{}`}), fakemodel.Text("done"))
			tool := &hugeTool{Spec: tools.Spec{ToolName: "Huge", Desc: "huge", Schema: map[string]any{"type": "object"},
				Caps: []tools.Capability{tools.CapReadOnly}, ReadOnly: true}}
			h := newHarness(t, srv, func(o *engine.Options) {
				o.ContextWindow = tc.window
				build := o.Tools
				o.Tools = func(env engine.TurnEnv) engine.Toolset {
					ts := build(env)
					ts.Registry.Register(tool)
					return ts
				}
			})
			done(t, h.turn("go"))
			if got := tool.budget.Load(); got != int64(tc.budget) {
				t.Errorf("window %d: the tool was given budget %d, want %d", tc.window, got, tc.budget)
			}
			if n := len([]rune(toolMessage(t, srv.Requests()[1], "h1"))); n > tc.budget {
				t.Errorf("window %d: the model received %d characters, over the budget %d", tc.window, n, tc.budget)
			}
		})
	}
}

// CONTRACT.md §9.10: a panic in the loop ends the turn failed with the exact internal-error text, and the engine
// keeps running.
func TestPanicFailsTheTurnAndTheEngineGoesOn(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("still here"))
	first := true
	h := newHarness(t, srv, func(o *engine.Options) {
		o.TurnStart = func() []string {
			if first {
				first = false
				panic("boom")
			}
			return nil
		}
	})
	tc := done(t, h.turn("hi"))
	want := "The engine hit an internal error and stopped this turn: boom. Your session is intact — send your message again to retry."
	if tc.Status != engine.TurnFailed || tc.Error != want || tc.ErrorCategory != "internal" {
		t.Errorf("outcome %+v", tc)
	}
	evs := h.turn("again")
	if tc := done(t, evs); tc.Status != engine.TurnCompleted || text(evs) != "still here" {
		t.Errorf("the next turn: %+v %q", tc, text(evs))
	}
}

// CONTRACT.md §9.11: a cancel while a call's arguments stream keeps the visible text as assistant_interrupted and
// drops the partial call; the turn ends interrupted with the status 'Request cancelled' (CONTRACT.md §9.10), and the
// next request sends the text with the interrupted prefix.
func TestCancelDropsPartialCallsAndKeepsTheText(t *testing.T) {
	t.Parallel()
	// The stream sends the text, the call's name and half its arguments,
	// then hangs until the client goes away.
	srv := fakemodel.New(t, fakemodel.Reply{Text: "Reading it now.", Chunk: 100, StallAfter: 4,
		Calls: []fakemodel.Call{{ID: "c1", Name: "File", Args: `{"action":"read","path":"a.txt"}`}}}, fakemodel.Text("ok"))
	h := newHarness(t, srv)
	h.eng.Submit(engine.SendMessage{Content: "read"})
	evs := h.collect(func(ev engine.Event) {
		if _, ok := ev.(engine.MessageDelta); ok {
			time.AfterFunc(200*time.Millisecond, h.eng.Cancel) // the call's frames are in by then
		}
	})
	if tc := done(t, evs); tc.Status != engine.TurnInterrupted {
		t.Fatalf("status %v: %v", tc.Status, describe(evs))
	}
	if !slices.Contains(statuses(evs), "Request cancelled") {
		t.Errorf("statuses %q", statuses(evs))
	}
	if n := len(all[engine.ToolCallStarted](evs)) + len(all[engine.ToolCallComplete](evs)); n != 0 {
		t.Errorf("the partial call was announced: %v", describe(evs))
	}
	msgs := h.eng.Snapshot().Messages
	for _, m := range msgs {
		if m.HasBlock(provider.BlockToolUse) || m.HasBlock(provider.BlockToolResult) {
			t.Errorf("the partial call reached the history: %+v", m)
		}
	}
	if last := msgs[len(msgs)-1]; last.Role != provider.RoleAssistantInterrupted || last.Text() != "Reading it now." {
		t.Errorf("last message %s %q", last.Role, last.Text())
	}
	h.turn("go on")
	var sent []string
	for _, m := range srv.Requests()[1].Messages() {
		if m["role"] == "assistant" {
			s, _ := m["content"].(string)
			sent = append(sent, s)
		}
	}
	if len(sent) != 1 || sent[0] != provider.InterruptedPrefix+"Reading it now." {
		t.Errorf("assistant messages sent %q", sent)
	}
}

// CONTRACT.md §9.11: after a cancel while a card waits, every call of the batch has its one result in the history
// (the exact cancelled and not-executed texts), so the history stays well formed.
func TestCancelLeavesOneResultPerCallInTheHistory(t *testing.T) {
	t.Parallel()
	g := newGuarded(tools.Required)
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "a", Name: "Guarded", Args: `{"path":"a"}`},
		fakemodel.Call{ID: "b", Name: "Guarded", Args: `{"path":"b"}`}))
	h := newHarness(t, srv, func(o *engine.Options) {
		o.Posture, o.Interactive, o.AutoApprove = posture.Ask, true, false
		o.Tools = g.toolset
	})
	h.eng.Submit(engine.SendMessage{Content: "go"})
	h.collect(func(ev engine.Event) {
		if _, ok := ev.(engine.ApprovalRequired); ok {
			h.eng.Cancel()
		}
	})
	var uses []string
	results := map[string][]string{}
	for _, m := range h.eng.Snapshot().Messages {
		for _, b := range m.Content {
			switch b.Type {
			case provider.BlockToolUse:
				uses = append(uses, b.ID)
			case provider.BlockToolResult:
				results[b.ToolUseID] = append(results[b.ToolUseID], b.Content)
			}
		}
	}
	if strings.Join(uses, ",") != "a,b" || len(results) != 2 {
		t.Fatalf("calls %v, results %v", uses, results)
	}
	if r := results["a"]; len(r) != 1 || !strings.Contains(r[0], "Request cancelled while awaiting approval") {
		t.Errorf("a: %q", r)
	}
	if r := results["b"]; len(r) != 1 || r[0] != "Tool not executed: the request was cancelled before this tool ran." {
		t.Errorf("b: %q", r)
	}
}

// CONTRACT.md §9.11: a background Bash job started in a turn keeps running when the turn is cancelled.
func TestBackgroundJobSurvivesATurnCancel(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the job runs /bin/sh")
	}
	jm, err := jobs.NewManager(jobs.Options{Shell: "/bin/sh", KillGrace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(jm.Close)
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "bg", Name: "Bash", Args: `{"command":"sleep 30","background":true}`}),
		fakemodel.Reply{Text: strings.Repeat("word ", 200), Chunk: 5, Delay: 10 * time.Millisecond})
	h := newHarness(t, srv, func(o *engine.Options) {
		o.Mode, o.AllowShell = posture.Act, true
		svc := toolset.NewServices(toolset.Options{Workspace: o.Workspace})
		svc.Jobs = jm
		o.Tools = svc.Toolset
	})
	h.eng.Submit(engine.SendMessage{Content: "start it"})
	var id string
	evs := h.collect(func(ev engine.Event) {
		switch ev := ev.(type) {
		case engine.ToolCallComplete:
			id, _ = ev.Result.Metadata["task_id"].(string)
		case engine.MessageDelta:
			h.eng.Cancel()
		}
	})
	if tc := done(t, evs); tc.Status != engine.TurnInterrupted || id == "" {
		t.Fatalf("status %v, job %q: %v", tc.Status, id, describe(evs))
	}
	snap, err := jm.Snapshot(id)
	if err != nil || snap.Status != jobs.Running {
		t.Errorf("job %s after the cancel: %+v, %v", id, snap, err)
	}
}

// CONTRACT.md §9.12: HTTP 499 is retried like the other listed statuses.
func TestStatus499IsRetried(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Status: 499, Body: `{"error":{"message":"client closed request"}}`}, fakemodel.Text("recovered"))
	evs := newHarness(t, srv).turn("hi")
	ry, ok := last[engine.Retry](evs)
	if !ok || ry.Status != 499 || ry.Reason != "Server error (499)" {
		t.Errorf("retry %+v: %v", ry, describe(evs))
	}
	if tc := done(t, evs); tc.Status != engine.TurnCompleted || text(evs) != "recovered" {
		t.Errorf("outcome %+v, text %q", tc, text(evs))
	}
}

// CONTRACT.md §9.12: a network error (nothing listening) is retried up to the budget, each retry announced, then
// the turn fails.
func TestNetworkErrorsAreRetried(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	h := newHarness(t, fakemodel.New(t), func(o *engine.Options) {
		o.NewClient = func(model string) (*provider.Client, error) {
			return provider.New(provider.Config{BaseURL: "http://" + addr + "/v1", Model: model, Retry: fastRetry})
		}
	})
	evs := h.turn("hi")
	var reasons []string
	for _, r := range all[engine.Retry](evs) {
		reasons = append(reasons, fmt.Sprintf("%d/%d:%s", r.Attempt, r.Max, r.Reason))
	}
	if got := strings.Join(reasons, " "); got != "2/4:Connection failed 3/4:Connection failed 4/4:Connection failed" {
		t.Errorf("retries %s", got)
	}
	if tc := done(t, evs); tc.Status != engine.TurnFailed || tc.ErrorCategory != "network" {
		t.Errorf("outcome %+v", tc)
	}
}

// CONTRACT.md §9.12: a stream that stalls after content is re-sent: what it streamed is retracted and the Retry
// event names the stall; one that stalls before content is re-sent with no retraction.
func TestStalledStreamsAreResent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		first   fakemodel.Reply
		retract bool
	}{
		{"after content", fakemodel.Reply{Text: "alpha beta gamma", Chunk: 6, StallAfter: 3}, true},
		{"before content", fakemodel.Reply{Text: "x", Stall: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t, tc.first, fakemodel.Text("after the stall"))
			h := newHarness(t, srv, func(o *engine.Options) {
				o.NewClient = func(model string) (*provider.Client, error) {
					return provider.New(provider.Config{BaseURL: srv.URL, Model: model, Retry: fastRetry, IdleTimeout: 300 * time.Millisecond})
				}
			})
			evs := h.turn("hi")
			ry, ok := last[engine.Retry](evs)
			if !ok || !strings.HasPrefix(ry.Reason, "Stream stalled") {
				t.Errorf("retry %+v", ry)
			}
			r, retracted := last[engine.Retract](evs)
			if retracted != tc.retract || tc.retract && r.TextChars == 0 {
				t.Errorf("retract %v %+v", retracted, r)
			}
			msgs := h.eng.Snapshot().Messages
			if tc := done(t, evs); tc.Status != engine.TurnCompleted || msgs[len(msgs)-1].Text() != "after the stall" {
				t.Errorf("outcome %+v, history %+v", tc, msgs)
			}
		})
	}
}

// CONTRACT.md §9.12: the default policy is 3 retries, and the wait grows exponentially (±10 % jitter) up to the cap.
func TestDefaultRetriesAndExponentialBackoff(t *testing.T) {
	t.Parallel()
	if d := provider.DefaultRetry; !d.Enabled || d.MaxRetries != 3 {
		t.Errorf("default retry policy %+v", d)
	}
	p := provider.RetryPolicy{Enabled: true, MaxRetries: 5, InitialDelay: 100 * time.Millisecond, MaxDelay: 500 * time.Millisecond, ExponentialBase: 2}
	for attempt, want := range []time.Duration{100, 200, 400, 500, 500} {
		want *= time.Millisecond
		for range 20 {
			if d := p.Delay(attempt); d < want*9/10 || d > want*11/10 {
				t.Errorf("Delay(%d) = %v, want %v ±10%%", attempt, d, want)
			}
		}
	}
	// A client given no policy makes at most 1 + 3 attempts.
	srv := fakemodel.New(t, fakemodel.Reply{Status: 503, Body: "busy"}, fakemodel.Text("ok"))
	c, err := provider.New(provider.Config{BaseURL: srv.URL, Model: "deepseek-v4-pro"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Stream(context.Background(), &provider.Request{Model: "deepseek-v4-pro", MaxTokens: 100, Messages: []provider.Message{provider.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var maxAttempts int
	for {
		ev, err := s.Recv()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		if ev.Kind == provider.EvRetry {
			maxAttempts = ev.Retry.Max
		}
	}
	if maxAttempts != 4 {
		t.Errorf("the default policy allows %d attempts, want 4", maxAttempts)
	}
}
