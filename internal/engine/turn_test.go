package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/toolset"
)

var fastRetry = provider.RetryPolicy{Enabled: true, MaxRetries: 3, InitialDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, ExponentialBase: 2}

// harness is one engine wired to a fake model server.
type harness struct {
	t   *testing.T
	srv *fakemodel.Server
	eng *engine.Engine
	svc *toolset.Services
	ws  string
}

func newHarness(t *testing.T, srv *fakemodel.Server, mut ...func(*engine.Options)) *harness {
	t.Helper()
	ws := t.TempDir()
	svc := toolset.NewServices(toolset.Options{Workspace: ws})
	opts := engine.Options{
		Workspace: ws, Model: "deepseek-v4-pro", Interactive: false, AutoApprove: true,
		NewClient: func(model string) (*provider.Client, error) {
			return provider.New(provider.Config{BaseURL: srv.URL, Model: model, Retry: fastRetry})
		},
		Tools: svc.Toolset,
		Clock: func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) },
	}
	for _, m := range mut {
		m(&opts)
	}
	e := engine.New(opts)
	ctx, cancel := context.WithCancel(context.Background())
	go e.Run(ctx)
	t.Cleanup(func() {
		cancel()
		for range e.Events() {
		}
	})
	return &harness{t: t, srv: srv, eng: e, svc: svc, ws: ws}
}

// turn sends prompt and returns the events up to and including TurnComplete.
func (h *harness) turn(prompt string) []engine.Event {
	h.t.Helper()
	h.eng.Submit(engine.SendMessage{Content: prompt})
	return h.collect(nil)
}

func (h *harness) collect(onEvent func(engine.Event)) []engine.Event {
	h.t.Helper()
	var evs []engine.Event
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-h.eng.Events():
			evs = append(evs, ev)
			if onEvent != nil {
				onEvent(ev)
			}
			if _, ok := ev.(engine.TurnComplete); ok {
				return evs
			}
		case <-timeout:
			h.t.Fatalf("turn did not complete; events so far: %v", describe(evs))
		}
	}
}

func describe(evs []engine.Event) []string {
	var out []string
	for _, ev := range evs {
		switch ev := ev.(type) {
		case engine.Status:
			out = append(out, "status:"+ev.Message)
		case engine.Error:
			out = append(out, "error:"+ev.Message)
		case engine.ToolCallComplete:
			out = append(out, "tool:"+ev.Name+"="+ev.Result.Content)
		default:
			out = append(out, strings.TrimPrefix(strings.Split(strings.TrimPrefix(fmtType(ev), "engine."), "{")[0], "*"))
		}
	}
	return out
}

func fmtType(ev engine.Event) string { b, _ := json.Marshal(ev); return typeName(ev) + string(b) }

func typeName(ev engine.Event) string {
	switch ev.(type) {
	case engine.TurnStarted:
		return "TurnStarted"
	case engine.ToolRequestSnapshot:
		return "Snapshot"
	case engine.MessageStarted:
		return "MessageStarted"
	case engine.MessageDelta:
		return "MessageDelta"
	case engine.MessageComplete:
		return "MessageComplete"
	case engine.ThinkingStarted:
		return "ThinkingStarted"
	case engine.ThinkingDelta:
		return "ThinkingDelta"
	case engine.ThinkingComplete:
		return "ThinkingComplete"
	case engine.ToolCallStarted:
		return "ToolCallStarted"
	case engine.TurnUsage:
		return "TurnUsage"
	case engine.SessionUpdated:
		return "SessionUpdated"
	case engine.TurnComplete:
		return "TurnComplete"
	case engine.Retry:
		return "Retry"
	case engine.Retract:
		return "Retract"
	}
	return "?"
}

func last[T engine.Event](evs []engine.Event) (T, bool) {
	for i := len(evs) - 1; i >= 0; i-- {
		if v, ok := evs[i].(T); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

func all[T engine.Event](evs []engine.Event) []T {
	var out []T
	for _, ev := range evs {
		if v, ok := ev.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

func text(evs []engine.Event) string {
	var b strings.Builder
	for _, d := range all[engine.MessageDelta](evs) {
		b.WriteString(d.Content)
	}
	return b.String()
}

func done(t *testing.T, evs []engine.Event) engine.TurnComplete {
	t.Helper()
	tc, ok := last[engine.TurnComplete](evs)
	if !ok {
		t.Fatal("no TurnComplete")
	}
	return tc
}

// CONTRACT.md §9.10: a step without tool calls and nothing pending ends the turn completed.
func TestTextTurn(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("Hello there."))
	h := newHarness(t, srv)
	evs := h.turn("hi")
	if got := text(evs); got != "Hello there." {
		t.Errorf("text %q", got)
	}
	tc := done(t, evs)
	if tc.Status != engine.TurnCompleted || tc.Usage.InputTokens != 100 || *tc.Usage.PromptCacheHitTokens != 64 {
		t.Errorf("turn complete %+v", tc)
	}
	if _, ok := evs[0].(engine.TurnStarted); !ok {
		t.Errorf("first event %T", evs[0])
	}
	sess := h.eng.Snapshot()
	if len(sess.Messages) != 2 || sess.Messages[1].Text() != "Hello there." || sess.Usage.InputTokens != 100 {
		t.Errorf("session %+v", sess.Messages)
	}
	req := srv.Requests()[0]
	msgs := req.Messages()
	if msgs[0]["role"] != "system" || !strings.Contains(msgs[1]["content"].(string), "Current local date: 2026-11-29") {
		t.Errorf("request messages %v", msgs)
	}
	if names := req.ToolNames(); strings.Join(names, ",") != "File,Git,work_update,tool_search" {
		t.Errorf("tools %v", names)
	}
}

func TestReasoningThenText(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Reasoning: "Let me think.", Text: "Answer."}, fakemodel.Text("Second."))
	h := newHarness(t, srv)
	evs := h.turn("q")
	var thinking strings.Builder
	for _, d := range all[engine.ThinkingDelta](evs) {
		thinking.WriteString(d.Content)
	}
	if thinking.String() != "Let me think." || text(evs) != "Answer." {
		t.Errorf("thinking %q text %q", thinking.String(), text(evs))
	}
	if len(all[engine.ThinkingComplete](evs)) != 1 || len(all[engine.MessageComplete](evs)) != 1 {
		t.Error("blocks not closed")
	}
	// The stored reasoning is replayed on the next request.
	h.turn("again")
	msgs := srv.Requests()[1].Messages()
	var asst map[string]any
	for _, m := range msgs {
		if m["role"] == "assistant" {
			asst = m
		}
	}
	if asst["reasoning_content"] != "Let me think." || asst["content"] != "Answer." {
		t.Errorf("replayed assistant %v", asst)
	}
}

// CONTRACT.md §4.3: a hit is in the request from the next step, appended at the tail, and the next turn starts again
// without it (also CONTRACT.md §4.9).
// CONTRACT.md §11.1: one snapshot per step, stamped with its step, counting the tools that step's request carried.
func TestToolSearchLoadsUpdatePlanOnTheNextStep(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "s1", Name: "tool_search", Args: `{"query":"plan strategy"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "p1", Name: "update_plan", Args: `{"objective":"Port the registry","constraints":["no fuzzy resolve"]}`}),
		fakemodel.Text("Planned."))
	h := newHarness(t, srv)
	evs := h.turn("make a plan")
	if tc := done(t, evs); tc.Status != engine.TurnCompleted {
		t.Fatalf("status %v %s", tc.Status, tc.Error)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := strings.Join(reqs[0].ToolNames(), ","); got != "File,Git,work_update,tool_search" {
		t.Errorf("step 0 tools %s (update_plan must not be sent before it is loaded)", got)
	}
	if got := strings.Join(reqs[1].ToolNames(), ","); got != "File,Git,work_update,tool_search,update_plan" {
		t.Errorf("step 1 tools %s", got)
	}
	if !reqs[1].HasToolResult(`"tool_name":"update_plan"`) {
		t.Error("tool_search result did not reach the model")
	}
	if !reqs[2].HasToolResult("Plan updated: 0 pending, 0 in progress, 0 completed (0% done)") {
		t.Error("update_plan result did not reach the model")
	}
	if st := h.svc.Plan.Get(); st.Objective != "Port the registry" {
		t.Errorf("plan state %+v", st)
	}
	snaps := all[engine.ToolRequestSnapshot](evs)
	if len(snaps) != 3 || snaps[1].Snapshot.Step != 1 || snaps[1].Snapshot.ToolCount != 5 {
		t.Errorf("snapshots %d", len(snaps))
	}
	// A new turn rebuilds the catalog: the load does not persist.
	srv.Push(fakemodel.Text("ok"))
	h.turn("next")
	if got := strings.Join(srv.Requests()[3].ToolNames(), ","); got != "File,Git,work_update,tool_search" {
		t.Errorf("new turn tools %s", got)
	}
}

// CONTRACT.md §3.3: the engine never dispatches a near-miss name, answers each with the not-registered text, and gives
// exec_shell the renamed-to-Bash hint.
// CONTRACT.md §9.7: a blocked call keeps its slot: one ToolCallComplete and one tool message each, in call order.
// README.md "Tools": an unknown or removed name (read_file, exec_shell, Fil) gets `tool '<name>' is not registered` and runs nothing.
func TestUnknownRemovedAndNearMissNamesNeverDispatch(t *testing.T) {
	t.Parallel()
	names := []string{"read_file", "exec_shell", "Fil", "UPDATE_PLAN", "update-plan", "updatePlan", "agents"}
	var calls []fakemodel.Call
	for i, n := range names {
		calls = append(calls, fakemodel.Call{ID: "c" + string(rune('a'+i)), Name: n, Args: `{"objective":"x"}`})
	}
	srv := fakemodel.New(t, fakemodel.Tools(calls...), fakemodel.Text("done"))
	h := newHarness(t, srv)
	evs := h.turn("go")
	results := all[engine.ToolCallComplete](evs)
	if len(results) != len(names) {
		t.Fatalf("%d results for %d calls", len(results), len(names))
	}
	for i, r := range results {
		if r.ID != calls[i].ID {
			t.Errorf("result %d answers %s, want %s (call order)", i, r.ID, calls[i].ID)
		}
		want := "tool '" + names[i] + "' is not registered"
		if !strings.Contains(r.Result.Content, want) || !r.Result.IsError {
			t.Errorf("%s: %q", names[i], r.Result.Content)
		}
	}
	if !strings.Contains(results[1].Result.Content, "call `Bash` with action \"run\"") {
		t.Errorf("exec_shell hint: %s", results[1].Result.Content)
	}
	if st := h.svc.Plan.Get(); st.Objective != "" {
		t.Error("a near-miss name dispatched to update_plan")
	}
	// Every call got exactly one result message, in order, before the next request.
	n := 0
	for _, m := range srv.Requests()[1].Messages() {
		if m["role"] == "tool" {
			if m["tool_call_id"] != calls[n].ID {
				t.Errorf("tool message %d answers %v", n, m["tool_call_id"])
			}
			n++
		}
	}
	if n != len(names) {
		t.Errorf("%d tool messages", n)
	}
}

// CONTRACT.md §9.3: unparsable arguments are refused as invalid input and the turn goes on.
func TestMalformedAndInvalidArgumentsBecomeResults(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(
		fakemodel.Call{ID: "a", Name: "update_plan", Args: `{"objective": `},
		fakemodel.Call{ID: "b", Name: "update_plan", Args: `{"objective": 5}`},
		fakemodel.Call{ID: "c", Name: "update_plan", Args: `{"plan": "nope"}`},
		fakemodel.Call{ID: "d", Name: "tool_search", Args: `{"query":"x","match":"fuzzy"}`},
	), fakemodel.Text("ok"))
	h := newHarness(t, srv)
	evs := h.turn("go")
	res := all[engine.ToolCallComplete](evs)
	want := []string{"not valid JSON", "field 'objective' must be a string", "Invalid 'plan' array", "Unsupported match algorithm 'fuzzy'. Expected one of: bm25, regex"}
	for i, r := range res {
		if !r.Result.IsError || !strings.Contains(r.Result.Content, want[i]) {
			t.Errorf("call %d: %q", i, r.Result.Content)
		}
	}
	if !strings.Contains(strings.Join(describe(evs), "\n"), "⚠ Tool 'update_plan' received malformed arguments from model") {
		t.Error("no malformed-arguments status")
	}
	if tc := done(t, evs); tc.Status != engine.TurnCompleted {
		t.Errorf("status %v", tc.Status)
	}
}

// CONTRACT.md §9.12: a 503 is retried and recovers; a 401 is not retried and fails the turn (also CONTRACT.md §9.10).
// CONTRACT.md §9.10: a provider error not recovered ends the turn failed.
func TestRetryAfter503AndAuthFailure(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Status: 503, Body: `{"error":{"message":"overloaded"}}`}, fakemodel.Text("recovered"))
	h := newHarness(t, srv)
	evs := h.turn("hi")
	if text(evs) != "recovered" || done(t, evs).Status != engine.TurnCompleted {
		t.Errorf("503 then success: %v", describe(evs))
	}

	srv2 := fakemodel.New(t, fakemodel.Reply{Status: 401, Body: `{"error":{"message":"Authentication Fails"}}`}, fakemodel.Text("never"))
	h2 := newHarness(t, srv2)
	evs = h2.turn("hi")
	tc := done(t, evs)
	if tc.Status != engine.TurnFailed || tc.ErrorCategory != "authentication" || !strings.Contains(tc.Error, "Set a valid key with") {
		t.Errorf("401: %+v", tc)
	}
	if len(srv2.Requests()) != 1 {
		t.Errorf("401 retried: %d requests", len(srv2.Requests()))
	}
}

// A stream cut mid-answer is re-sent by the provider; what the failed
// attempt streamed is retracted, in every host, and only the final answer
// reaches the history.
// CONTRACT.md §9.12: a stream cut after content is re-sent, what it streamed retracted, with the Stream dropped Retry
// event.
func TestStreamCutMidwayIsRetractedAndResent(t *testing.T) {
	t.Parallel()
	for _, interactive := range []bool{false, true} {
		srv := fakemodel.New(t, fakemodel.Reply{Text: "alpha beta gamma", Chunk: 6, CutAfter: 3}, fakemodel.Text("after reset ok"))
		h := newHarness(t, srv, func(o *engine.Options) { o.Interactive = interactive })
		evs := h.turn("hi")
		if tc := done(t, evs); tc.Status != engine.TurnCompleted {
			t.Fatalf("interactive=%v: status %v: %v", interactive, tc.Status, describe(evs))
		}
		r, ok := last[engine.Retract](evs)
		if !ok || r.TextChars != len("alpha beta g") {
			t.Errorf("interactive=%v: retract %+v in %v", interactive, r, describe(evs))
		}
		ry, ok := last[engine.Retry](evs)
		if !ok || ry.Attempt != 2 || ry.Max != 4 || ry.Reason != "Stream dropped" || !strings.HasPrefix(ry.Line(), "Stream dropped — retrying in ") {
			t.Errorf("interactive=%v: retry %+v", interactive, ry)
		}
		// What a host shows: deltas after the last retraction.
		shown := ""
		for _, ev := range evs {
			switch ev := ev.(type) {
			case engine.Retract:
				shown = ""
			case engine.MessageDelta:
				shown += ev.Content
			}
		}
		msgs := h.eng.Snapshot().Messages
		if shown != "after reset ok" || len(msgs) != 2 || msgs[1].Text() != "after reset ok" {
			t.Errorf("interactive=%v: shown %q, history %d messages ending %q", interactive, shown, len(msgs), msgs[len(msgs)-1].Text())
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("interactive=%v: %d requests", interactive, n)
		}
	}
}

// A deterministic overflow is permanent: one request, a message that names
// the cap, a failed turn whose category does not read as a network error.
// CONTRACT.md §9.3: a stream is bounded at 10 MiB of text plus reasoning, and the overflow fails the turn at once.
func TestContentCapIsPermanent(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Text: strings.Repeat("x", 10<<20+100), Chunk: 1 << 20}, fakemodel.Text("never"))
	h := newHarness(t, srv)
	tc := done(t, h.turn("hi"))
	if tc.Status != engine.TurnFailed || tc.ErrorCategory != "parse" || !strings.Contains(tc.Error, "response content (text + reasoning) cap of 10 MiB") {
		t.Errorf("outcome %+v", tc)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests", n)
	}
}

// CONTRACT.md §9.11: cancel while streaming keeps the visible partial text as assistant_interrupted and ends the turn
// interrupted (also CONTRACT.md §9.10).
// CONTRACT.md §9.10: a cancel ends the turn interrupted.
func TestCancelMidStreamKeepsPartialText(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Text: strings.Repeat("word ", 200), Chunk: 5, Delay: 10 * time.Millisecond})
	h := newHarness(t, srv)
	h.eng.Submit(engine.SendMessage{Content: "long"})
	deltas := 0
	var cancelled time.Time
	evs := h.collect(func(ev engine.Event) {
		if _, ok := ev.(engine.MessageDelta); ok {
			if deltas++; deltas == 3 {
				cancelled = time.Now()
				h.eng.Cancel()
			}
		}
	})
	if d := time.Since(cancelled); d > time.Second {
		t.Errorf("cancel took %v", d)
	}
	tc := done(t, evs)
	if tc.Status != engine.TurnInterrupted {
		t.Fatalf("status %v", tc.Status)
	}
	msgs := h.eng.Snapshot().Messages
	lastMsg := msgs[len(msgs)-1]
	if lastMsg.Role != provider.RoleAssistantInterrupted || !strings.HasPrefix(lastMsg.Text(), "word word ") {
		t.Errorf("last message %s %q", lastMsg.Role, lastMsg.Text())
	}
	if h.eng.State() != engine.Idle {
		t.Errorf("state after cancel: %v", h.eng.State())
	}
}

func TestMissingKeyFailsTheTurnWithHowToFix(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	h := newHarness(t, srv, func(o *engine.Options) {
		o.NewClient = func(model string) (*provider.Client, error) {
			return provider.New(provider.Config{BaseURL: "https://api.deepseek.com/beta", Model: model})
		}
	})
	evs := h.turn("hi")
	tc := done(t, evs)
	if tc.Status != engine.TurnFailed || !strings.HasPrefix(tc.Error, "Failed to send message: DeepSeek API key not found.") ||
		tc.ErrorCategory != "authentication" {
		t.Errorf("%+v", tc)
	}
}

// CONTRACT.md §9.2: max_steps stops the turn with the status 'Reached maximum steps', reported and never silent.
// CONTRACT.md §9.10: max_steps reached ends the turn completed with MaxStepsReached set,
// and its Steps are the steps it made (exec's num_turns, CONTRACT.md §13.2), not one more.
func TestMaxStepsIsReported(t *testing.T) {
	t.Parallel()
	loop := fakemodel.Tools(fakemodel.Call{Name: "tool_search", Args: `{"query":"x"}`})
	srv := fakemodel.New(t, loop, loop, loop)
	h := newHarness(t, srv, func(o *engine.Options) { o.MaxSteps = 2 })
	evs := h.turn("loop")
	tc := done(t, evs)
	if !tc.MaxStepsReached || tc.Status != engine.TurnCompleted || len(srv.Requests()) != 2 || tc.Steps != 2 {
		t.Errorf("%+v after %d requests", tc, len(srv.Requests()))
	}
	if !strings.Contains(strings.Join(describe(evs), "\n"), "status:Reached maximum steps") {
		t.Error("max steps not reported")
	}
}

func TestPlanModeChangeAppliesToNextRequest(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("a"))
	h := newHarness(t, srv)
	plan := posture.Plan
	h.eng.Submit(engine.ChangeMode{Mode: &plan})
	h.turn("x")
	sys := srv.Requests()[0].Messages()[0]["content"].(string)
	if !strings.Contains(sys, "Mode: Plan") {
		t.Errorf("system prompt does not say Plan: %s", sys)
	}
	if m, _ := h.eng.Mode(); m != posture.Plan {
		t.Errorf("mode %v", m)
	}
}

// A host that sends its next message as soon as TurnComplete arrives (the
// TUI's queue) is never refused with "a turn is already running".
func TestNextMessageRightAfterTurnCompleteIsAccepted(t *testing.T) {
	t.Parallel()
	var replies []fakemodel.Reply
	for i := 0; i < 20; i++ {
		replies = append(replies, fakemodel.Text(fmt.Sprintf("answer %d", i)))
	}
	srv := fakemodel.New(t, replies...)
	h := newHarness(t, srv)
	for i := 0; i < 20; i++ {
		evs := h.turn(fmt.Sprintf("question %d", i))
		for _, e := range all[engine.Error](evs) {
			t.Fatalf("turn %d: %s", i, e.Message)
		}
		if got := text(evs); got != fmt.Sprintf("answer %d", i) {
			t.Fatalf("turn %d: %q", i, got)
		}
	}
}

func TestSetReasoningEffortAppliesToTheNextRequest(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("a"), fakemodel.Text("b"))
	h := newHarness(t, srv)
	h.turn("first")
	h.eng.Submit(engine.SetReasoningEffort{Effort: "off"})
	h.turn("second")
	first, second := srv.Requests()[0].Body, srv.Requests()[1].Body
	if _, ok := first["thinking"]; ok {
		t.Errorf("no tier configured: neither field is sent, got %v", first["thinking"])
	}
	if th, _ := second["thinking"].(map[string]any); th["type"] != "disabled" || second["reasoning_effort"] != nil {
		t.Errorf("after /effort off: %v %v", second["thinking"], second["reasoning_effort"])
	}
}

// Three read-only calls in one step run as one parallel group and are each
// answered once, in call order.
// CONTRACT.md §9.8: consecutive read-only parallel-safe calls form one group, with the exact status, each answered
// once in call order.
func TestThreeParallelReadOnlyCalls(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(
		fakemodel.Call{ID: "a", Name: "File", Args: `{"action":"read","path":"a.txt"}`},
		fakemodel.Call{ID: "b", Name: "File", Args: `{"action":"read","path":"b.txt"}`},
		fakemodel.Call{ID: "c", Name: "File", Args: `{"action":"list"}`}), fakemodel.Text("read them"))
	h := newHarness(t, srv)
	for _, f := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(h.svc.Workspace, f), []byte("content of "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	evs := h.turn("read")
	if !strings.Contains(strings.Join(describe(evs), "\n"), "status:Executing 3 read-only tools in 1 parallel chunk(s)") {
		t.Errorf("not one parallel group: %v", describe(evs))
	}
	var ids []string
	for _, m := range srv.Requests()[1].Messages() {
		if m["role"] == "tool" {
			ids = append(ids, m["tool_call_id"].(string))
		}
	}
	if strings.Join(ids, ",") != "a,b,c" {
		t.Errorf("results %v", ids)
	}
	req := srv.Requests()[1]
	if !req.HasToolResult("content of a.txt") || !req.HasToolResult("content of b.txt") || !req.HasToolResult(`"name": "b.txt"`) {
		t.Errorf("results missing")
	}
	if n := len(all[engine.ToolCallComplete](evs)); n != 3 {
		t.Errorf("%d completions", n)
	}
}

// Plan mode narrows the request and refuses writes with the exact text.
// CONTRACT.md §4.6: a write in Plan is refused with the exact NotAvailable text and writes nothing.
func TestPlanModeNarrowsToolsAndRefusesWrites(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{Name: "File", Args: `{"action":"write","path":"x.txt","content":"x"}`}),
		fakemodel.Text("ok"))
	h := newHarness(t, srv, func(o *engine.Options) { o.Mode = posture.Plan })
	evs := h.turn("write a file")
	if got := strings.Join(srv.Requests()[0].ToolNames(), ","); got != "File,Git,work_update,tool_search" {
		t.Errorf("Plan tools %s", got)
	}
	res := all[engine.ToolCallComplete](evs)[0].Result
	want := "File action=\"write\" is unavailable in the current mode; nothing was written. Available actions here: read, list, search_name, search_content. Switch to Act mode (`/mode act`) for write-capable file work."
	if !strings.Contains(res.Content, want) || !res.IsError {
		t.Errorf("refusal %q", res.Content)
	}
	if _, err := os.Stat(filepath.Join(h.svc.Workspace, "x.txt")); err == nil {
		t.Error("Plan mode wrote a file")
	}
}

// The To-do rides along every request as a transient block, never stored.
// CONTRACT.md §7: the block rides along a copy of every request as one user message and is never stored.
func TestWorkStateBlockFollowsWorkUpdate(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{Name: "work_update", Args: `{"todos":[{"content":"Read seam","status":"completed"},{"content":"Write renderer","status":"in_progress"}]}`}),
		fakemodel.Text("working"), fakemodel.Text("next turn"))
	h2 := newHarnessWithWorkState(t, srv)
	h2.turn("plan it")
	first, second := srv.Requests()[0].Messages(), srv.Requests()[1].Messages()
	if strings.Contains(first[len(first)-1]["content"].(string), "codewhale:work_state") {
		t.Error("an empty To-do must send no block")
	}
	last := second[len(second)-1]
	want := "<codewhale:work_state>\nTo-do (50% settled)\n- [x] #1 Read seam\n- [~] #2 Write renderer\n</codewhale:work_state>"
	if last["role"] != "user" || last["content"] != want {
		t.Errorf("last message %v", last)
	}
	for _, m := range h2.eng.Snapshot().Messages {
		if strings.Contains(m.Text(), "codewhale:work_state") {
			t.Error("the work-state block was stored in history")
		}
	}
	h2.turn("again")
	third := srv.Requests()[2].Messages()
	if third[len(third)-1]["content"] != want {
		t.Error("the block must accompany every later request")
	}
}

func newHarnessWithWorkState(t *testing.T, srv *fakemodel.Server) *harness {
	var svc *toolset.Services
	h := newHarness(t, srv, func(o *engine.Options) {
		svc = toolset.NewServices(toolset.Options{Workspace: o.Workspace})
		o.Tools, o.WorkState = svc.Toolset, svc.WorkState
	})
	h.svc = svc
	return h
}

// Hosts see the answer's blocks as the stream turns from one kind of
// content to the next, straight from the provider's deltas: reasoning
// closes when text starts, the calls are announced (in order, with their
// whole arguments) when the answer finishes, and the text closes once.
// CONTRACT.md §8.2: hosts see the message and thinking events in order and each call announced once with its whole
// input (also CONTRACT.md §9.3).
func TestStreamBlocksAsHostsSeeThem(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Reasoning: "Think first.", Text: "Listing now.", Calls: []fakemodel.Call{
		{ID: "a", Name: "File", Args: `{"action":"list"}`}, {ID: "b", Name: "Git", Args: `{"action":"status"}`}}},
		fakemodel.Text("done"))
	h := newHarness(t, srv)
	evs := h.turn("q")
	var seq []string
	for _, ev := range evs {
		switch ev := ev.(type) {
		case engine.ThinkingStarted, engine.ThinkingComplete, engine.MessageStarted, engine.MessageComplete:
			seq = append(seq, typeName(ev))
		case engine.ToolCallStarted:
			seq = append(seq, "call:"+ev.ID+":"+string(ev.Input))
		}
		if _, ok := ev.(engine.ToolCallComplete); ok {
			break
		}
	}
	got := strings.Join(seq, " ")
	want := `ThinkingStarted ThinkingComplete MessageStarted call:a:{"action":"list"} call:b:{"action":"status"} MessageComplete`
	if !strings.HasPrefix(got, want) {
		t.Errorf("blocks\n got %s\nwant %s…", got, want)
	}
}
