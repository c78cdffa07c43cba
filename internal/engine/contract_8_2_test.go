package engine_test

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// CONTRACT.md §8.2: every event the section names is an engine.Event (a
// removed or renamed one fails to compile here).
var _ = []engine.Event{
	engine.TurnStarted{}, engine.ToolRequestSnapshot{}, engine.MessageStarted{}, engine.MessageDelta{},
	engine.MessageComplete{}, engine.ThinkingStarted{}, engine.ThinkingDelta{}, engine.ThinkingComplete{},
	engine.ToolCallStarted{}, engine.ToolCallComplete{}, engine.ToolCallProgress{}, engine.ApprovalRequired{},
	engine.TurnUsage{}, engine.Status{}, engine.Retry{}, engine.Retract{}, engine.Error{}, engine.SettingsChanged{},
	engine.SessionUpdated{},
	engine.CompactionStarted{}, engine.CompactionCompleted{}, engine.CompactionFailed{},
	engine.HistoryRewound{}, engine.SessionForked{}, engine.TurnComplete{},
}

// next returns the events up to and including the first of type E.
func next[E engine.Event](t *testing.T, h *harness) []engine.Event {
	t.Helper()
	var evs []engine.Event
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-h.eng.Events():
			evs = append(evs, ev)
			if _, ok := ev.(E); ok {
				return evs
			}
		case <-timeout:
			var zero E
			t.Fatalf("no %T; events so far: %v", zero, describe(evs))
		}
	}
}

// quiet fails when the engine emits anything within d.
func quiet(t *testing.T, h *harness, d time.Duration, after string) {
	t.Helper()
	select {
	case ev := <-h.eng.Events():
		t.Errorf("event after %s: %s", after, fmtType(ev))
	case <-time.After(d):
	}
}

// CONTRACT.md §8.2: ToolCallComplete — exactly one per call, whatever became
// of it (ran, unknown tool, malformed arguments, denied by the rules).
func TestContract82OneToolCallCompletePerCall(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(
		fakemodel.Call{ID: "ok", Name: "File", Args: `{"action":"list"}`},
		fakemodel.Call{ID: "unknown", Name: "NoSuchTool", Args: `{}`},
		fakemodel.Call{ID: "bad", Name: "update_plan", Args: `{"objective": `},
		fakemodel.Call{ID: "denied", Name: "Git", Args: `{"action":"status"}`},
		fakemodel.Call{ID: "ok2", Name: "File", Args: `{"action":"list"}`},
	), fakemodel.Text("done"))
	h := newHarness(t, srv, func(o *engine.Options) { o.DenyTools = []string{"Git"} })
	evs := h.turn("go")
	started, completed := map[string]int{}, map[string]int{}
	for _, s := range all[engine.ToolCallStarted](evs) {
		started[s.ID]++
	}
	for _, c := range all[engine.ToolCallComplete](evs) {
		completed[c.ID]++
		if started[c.ID] == 0 {
			t.Errorf("%s completed before (or without) being started", c.ID)
		}
	}
	want := map[string]int{"ok": 1, "unknown": 1, "bad": 1, "denied": 1, "ok2": 1}
	if !reflect.DeepEqual(started, want) || !reflect.DeepEqual(completed, want) {
		t.Errorf("started %v, completed %v; want one each of %v", started, completed, want)
	}
	if done(t, evs).Status != engine.TurnCompleted {
		t.Errorf("events %v", describe(evs))
	}
}

// CONTRACT.md §8.2: TurnUsage — one per provider call that reported usage: a
// two-step turn gives two, numbered by step, carrying what the server
// reported; a failed attempt (503, retried) adds none; they sum to the
// turn's usage.
func TestContract82OneTurnUsagePerReportingProviderCall(t *testing.T) {
	t.Parallel()
	tools := fakemodel.Tools(fakemodel.Call{ID: "a", Name: "File", Args: `{"action":"list"}`})
	tools.Usage = &fakemodel.Usage{Prompt: 120, Completion: 7, CacheHit: 64, CacheMiss: 56}
	answer := fakemodel.Text("done")
	answer.Usage = &fakemodel.Usage{Prompt: 200, Completion: 11, CacheHit: 128, CacheMiss: 72}
	srv := fakemodel.New(t, tools, fakemodel.Reply{Status: 503, Body: `{"error":{"message":"busy"}}`}, answer)
	h := newHarness(t, srv)
	evs := h.turn("go")
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d provider requests, want 3 (one retried)", n)
	}
	us := all[engine.TurnUsage](evs)
	if len(us) != 2 {
		t.Fatalf("%d TurnUsage events, want 2: %v", len(us), describe(evs))
	}
	for i, want := range []struct{ step, in, out int }{{1, 120, 7}, {2, 200, 11}} {
		u := us[i]
		if u.Step != want.step || u.Child || u.Unreported || u.Usage.InputTokens != want.in || u.Usage.OutputTokens != want.out {
			t.Errorf("usage %d: %+v, want step %d in %d out %d", i, u, want.step, want.in, want.out)
		}
	}
	if tc := done(t, evs); tc.Usage.InputTokens != 320 || tc.Usage.OutputTokens != 18 {
		t.Errorf("turn usage %+v, want the sum of the two", tc.Usage)
	}

	// A provider call that failed reported nothing: no TurnUsage.
	failed := newHarness(t, fakemodel.New(t, fakemodel.Reply{Status: 401, Body: `{"error":{"message":"bad key"}}`}))
	evs = failed.turn("go")
	if n := len(all[engine.TurnUsage](evs)); n != 0 || done(t, evs).Status != engine.TurnFailed {
		t.Errorf("a failed call gave %d TurnUsage: %v", n, describe(evs))
	}
}

// checkAppends replays evs' SessionUpdated events onto hist with Apply,
// checking each append carries only the new message at the old length.
func checkAppends(t *testing.T, hist []provider.Message, evs []engine.Event) []provider.Message {
	t.Helper()
	for _, u := range all[engine.SessionUpdated](evs) {
		if u.Start != len(hist) || len(u.Messages) != 1 {
			t.Errorf("append update Start %d with %d messages onto a history of %d", u.Start, len(u.Messages), len(hist))
		}
		hist = u.Apply(hist)
	}
	return hist
}

// CONTRACT.md §8.2: SessionUpdated follows every history change with the
// history from Start on — an append carries the new message alone, a
// compaction and a replaced session (SyncSession) the whole new history
// from 0 — and SessionUpdated.Apply folds each into the host's copy, which
// then equals the engine's history.
func TestContract82SessionUpdatedKeepsAHostCopyInStep(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "a", Name: "File", Args: `{"action":"list"}`}, fakemodel.Call{ID: "b", Name: "File", Args: `{"action":"list"}`}),
		fakemodel.Text(strings.Repeat("second answer ", 200)),
		fakemodel.Text(strings.Repeat("third answer ", 200)),
		fakemodel.Text("fourth answer"),
		fakemodel.Text("SUMMARY: three questions."))
	h := newHarness(t, srv)
	var host []provider.Message
	evs := h.turn("first")
	if n := len(all[engine.SessionUpdated](evs)); n != 5 { // prompt, assistant calls, two results, answer
		t.Errorf("%d SessionUpdated for 5 new messages: %v", n, describe(evs))
	}
	host = checkAppends(t, host, evs)
	host = checkAppends(t, host, h.turn("second"))
	host = checkAppends(t, host, h.turn("third"))
	if eng := h.eng.Snapshot().Messages; len(eng) != 9 || !reflect.DeepEqual(host, eng) {
		t.Fatalf("host copy (%d) differs from the engine's history (%d)", len(host), len(eng))
	}

	h.eng.Submit(engine.CompactContext{})
	evs = next[engine.CompactionCompleted](t, h)
	ups := all[engine.SessionUpdated](evs)
	eng := h.eng.Snapshot().Messages
	if len(ups) != 1 || ups[0].Start != 0 || len(ups[0].Messages) != len(eng) || len(eng) >= len(host) {
		t.Fatalf("compaction updates %+v for a history of %d (was %d)", ups, len(eng), len(host))
	}
	host = ups[0].Apply(host)
	if !reflect.DeepEqual(host, eng) {
		t.Fatal("after the compaction's update the host copy differs from the engine's history")
	}

	replaced := []provider.Message{provider.UserText("resumed prompt")}
	h.eng.Submit(engine.SyncSession{Session: engine.Session{ID: "other", Messages: replaced}})
	evs = next[engine.SessionUpdated](t, h)
	u, _ := last[engine.SessionUpdated](evs)
	if u.SessionID != "other" || u.Start != 0 || len(u.Messages) != 1 {
		t.Fatalf("replaced session update %+v", u)
	}
	if host = u.Apply(host); !reflect.DeepEqual(host, replaced) || !reflect.DeepEqual(h.eng.Snapshot().Messages, replaced) {
		t.Fatalf("after the replacement the host holds %d messages", len(host))
	}
}

// CONTRACT.md §8.2: HistoryRewound and SessionForked carry the history after
// RewindHistory / ForkSession (also when refused: the unchanged history),
// for the host to redraw from. A cut or a fork changes the history, so a
// SessionUpdated of the whole new history (Start 0) comes first and a host
// copy kept by Apply alone stays the engine's; a refusal changes nothing
// and sends none.
func TestContract82RewoundAndForkedCarryTheHistoryAfter(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("One."), fakemodel.Text("Two."), fakemodel.Text("Three."), fakemodel.Text("Four."))
	h := newHarness(t, srv)
	var host []provider.Message
	host = checkAppends(t, host, h.turn("first"))
	host = checkAppends(t, host, h.turn("second"))
	host = checkAppends(t, host, h.turn("third"))
	// update applies the one SessionUpdated of evs, which must come before
	// their last event, to the host copy.
	update := func(what, session string, evs []engine.Event) {
		t.Helper()
		ups := all[engine.SessionUpdated](evs)
		if len(ups) != 1 || ups[0].Start != 0 || ups[0].SessionID != session {
			t.Fatalf("%s: updates %+v", what, ups)
		}
		if _, ok := evs[len(evs)-2].(engine.SessionUpdated); !ok {
			t.Errorf("%s: the SessionUpdated is not just before %s: %v", what, fmtType(evs[len(evs)-1]), describe(evs))
		}
		host = ups[0].Apply(host)
		if snap := h.eng.Snapshot(); !reflect.DeepEqual(host, snap.Messages) || snap.ID != session {
			t.Fatalf("%s: the host copy (%d) differs from the engine's history (%d)", what, len(host), len(snap.Messages))
		}
	}

	h.eng.Submit(engine.RewindHistory{Keep: 4, Prompt: "third"})
	evs := next[engine.HistoryRewound](t, h)
	rw, _ := last[engine.HistoryRewound](evs)
	eng := h.eng.Snapshot().Messages
	if rw.Refused != "" || rw.Kept != 4 || rw.Dropped != 2 || len(eng) != 4 || !reflect.DeepEqual(rw.Messages, eng) {
		t.Fatalf("rewound %+v; engine holds %d", rw, len(eng))
	}
	update("rewind", rw.SessionID, evs)

	h.eng.Submit(engine.RewindHistory{Keep: 2, Prompt: "not in the conversation"})
	evs = next[engine.HistoryRewound](t, h)
	rw, _ = last[engine.HistoryRewound](evs)
	if rw.Refused == "" || !reflect.DeepEqual(rw.Messages, eng) || len(h.eng.Snapshot().Messages) != 4 {
		t.Fatalf("refused rewind %+v", rw)
	}
	if n := len(all[engine.SessionUpdated](evs)); n != 0 {
		t.Errorf("a refused rewind sent %d SessionUpdated", n)
	}

	h.eng.Submit(engine.ForkSession{ID: "fork-1", Keep: 2, Prompt: "second"})
	evs = next[engine.SessionForked](t, h)
	fk, _ := last[engine.SessionForked](evs)
	snap := h.eng.Snapshot()
	if fk.Refused != "" || fk.SessionID != "fork-1" || snap.ID != "fork-1" || fk.Kept != 2 || len(snap.Messages) != 2 ||
		!reflect.DeepEqual(fk.Messages, snap.Messages) || !reflect.DeepEqual(fk.Messages, eng[:2]) {
		t.Fatalf("forked %+v; engine %s holds %d", fk, snap.ID, len(snap.Messages))
	}
	update("fork", "fork-1", evs)

	h.eng.Submit(engine.ForkSession{ID: "fork-2", Keep: -1})
	evs = next[engine.SessionForked](t, h)
	fk, _ = last[engine.SessionForked](evs)
	if fk.From != "fork-1" || fk.SessionID != "fork-2" || !reflect.DeepEqual(fk.Messages, snap.Messages) {
		t.Fatalf("whole fork %+v", fk)
	}
	update("whole fork", "fork-2", evs)

	// The host's copy takes the next turn's appends where the fork left it.
	host = checkAppends(t, host, h.turn("fourth"))
	if len(host) != 4 || !reflect.DeepEqual(host, h.eng.Snapshot().Messages) {
		t.Error("after the next turn the host copy differs from the engine's history")
	}
}

// totalsJournal records the engine's saves; the save of the session's
// token totals (an Append of no message) is slow, to catch a TurnComplete
// sent before it finished.
type totalsJournal struct {
	mu     sync.Mutex
	totals []provider.Usage // the usage each finished totals save recorded
}

func (j *totalsJournal) Append(info engine.SessionInfo, msgs ...provider.Message) error {
	if len(msgs) == 0 {
		time.Sleep(100 * time.Millisecond)
		j.mu.Lock()
		j.totals = append(j.totals, info.Usage)
		j.mu.Unlock()
	}
	return nil
}

func (j *totalsJournal) Rewrite(engine.SessionInfo, []provider.Message) error { return nil }

func (j *totalsJournal) Compacted(engine.SessionInfo, int, provider.Message) error { return nil }

// CONTRACT.md §8.2: TurnComplete comes after all bookkeeping: when the host
// sees it the session's usage includes the turn, the totals are saved, the
// engine is idle, and the turn emits nothing after it.
func TestContract82TurnCompleteAfterAllBookkeeping(t *testing.T) {
	t.Parallel()
	j := &totalsJournal{}
	h := newHarness(t, fakemodel.New(t, fakemodel.Text("Hello.")), func(o *engine.Options) { o.Journal = j })
	evs := h.turn("hi")
	tc := done(t, evs)
	j.mu.Lock()
	totals := append([]provider.Usage(nil), j.totals...)
	j.mu.Unlock()
	if len(totals) != 1 || totals[0].InputTokens != 100 || totals[0].OutputTokens != 10 {
		t.Errorf("totals saved before TurnComplete: %+v", totals)
	}
	if s := h.eng.Snapshot(); s.Usage.InputTokens != tc.Usage.InputTokens || tc.Usage.InputTokens != 100 {
		t.Errorf("session usage %+v, turn usage %+v", s.Usage, tc.Usage)
	}
	if st := h.eng.State(); st != engine.Idle {
		t.Errorf("state %v at TurnComplete", st)
	}
	if _, ok := evs[len(evs)-1].(engine.TurnComplete); !ok {
		t.Errorf("last event %s", fmtType(evs[len(evs)-1]))
	}
	quiet(t, h, 300*time.Millisecond, "TurnComplete")
}

// CONTRACT.md §8.2: delivery is lossless — a host that does not read holds
// the turn back (it stays running) rather than losing events, and every
// delta arrives once it reads.
func TestContract82SlowHostSlowsTheTurnAndLosesNothing(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("0123456789", 100)
	reply := fakemodel.Text(long)
	reply.Chunk = 1 // 1,000 deltas, far more than the buffer
	h := newHarness(t, fakemodel.New(t, reply), func(o *engine.Options) { o.EventBuffer = 1 })
	h.eng.Submit(engine.SendMessage{Content: "talk"})
	time.Sleep(500 * time.Millisecond) // the host reads nothing meanwhile
	if st := h.eng.State(); st == engine.Idle {
		t.Fatal("the turn finished while the host read nothing: events were dropped, not waited for")
	}
	evs := h.collect(nil)
	if got := text(evs); got != long {
		t.Fatalf("text arrived with %d of %d characters", len(got), len(long))
	}
	if n := len(all[engine.MessageDelta](evs)); n != len(long) {
		t.Errorf("%d deltas, want %d", n, len(long))
	}
	if _, ok := evs[0].(engine.TurnStarted); !ok || len(all[engine.SessionUpdated](evs)) != 2 || len(all[engine.TurnUsage](evs)) != 1 {
		t.Errorf("events %v", describe(evs))
	}
}

// callLedger counts, per call id, the announcements, completions and
// retractions in evs, and checks every announced call ended exactly once:
// one ToolCallComplete, or withdrawn by a Retract of the re-sent request.
func callLedger(t *testing.T, evs []engine.Event) (started, completed, retracted map[string]int) {
	t.Helper()
	started, completed, retracted = map[string]int{}, map[string]int{}, map[string]int{}
	for _, ev := range evs {
		switch ev := ev.(type) {
		case engine.ToolCallStarted:
			started[ev.ID]++
		case engine.ToolCallComplete:
			completed[ev.ID]++
		case engine.Retract:
			for _, id := range ev.ToolIDs {
				retracted[id]++
			}
		}
	}
	for id, n := range started {
		if completed[id] != 1 || retracted[id]+completed[id] != n {
			t.Errorf("call %s: %d announced, %d completed, %d retracted; want each announcement ended once, one completion",
				id, n, completed[id], retracted[id])
		}
	}
	return started, completed, retracted
}

// CONTRACT.md §8.2: ToolCallComplete — exactly one per call also for the calls
// announced when the answer finished (finish_reason) but whose stream then
// ended without the step running them: the turn cancelled before the
// stream's end, or the stream broken there on its last attempt. They are
// answered as not executed; nothing of them enters the history.
func TestContract82AnnouncedCallsCompleteWhenTheStreamEndsEarly(t *testing.T) {
	t.Parallel()
	calls := fakemodel.Tools(fakemodel.Call{ID: "a", Name: "File", Args: `{"action":"list"}`},
		fakemodel.Call{ID: "b", Name: "File", Args: `{"action":"list"}`})
	usageFrame := len(fakemodel.Frames(calls)) - 1 // the frame after the finish_reason

	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		stalled := calls
		stalled.StallAfter = usageFrame
		h := newHarness(t, fakemodel.New(t, stalled))
		h.eng.Submit(engine.SendMessage{Content: "go"})
		evs := h.collect(func(ev engine.Event) {
			if s, ok := ev.(engine.ToolCallStarted); ok && s.ID == "b" {
				h.eng.Cancel()
			}
		})
		started, _, _ := callLedger(t, evs)
		if started["a"] != 1 || started["b"] != 1 || done(t, evs).Status != engine.TurnInterrupted {
			t.Fatalf("events %v", describe(evs))
		}
		for _, c := range all[engine.ToolCallComplete](evs) {
			if c.Result.Content != "Tool not executed: the request was cancelled before this tool ran." ||
				c.Result.Category != "cancelled" || c.Result.Success || c.Name != "File" {
				t.Errorf("cancelled call %s: %+v", c.ID, c.Result)
			}
		}
		for _, m := range h.eng.Snapshot().Messages {
			if len(m.ToolUses()) > 0 || m.Role != provider.RoleUser {
				t.Errorf("history holds %s message %q", m.Role, m.Text())
			}
		}
	})

	t.Run("stream broken on the last attempt", func(t *testing.T) {
		t.Parallel()
		cut := calls
		cut.CutAfter = usageFrame
		srv := fakemodel.New(t)
		srv.Respond(func(*fakemodel.Request) fakemodel.Reply { return cut })
		h := newHarness(t, srv)
		evs := h.turn("go")
		started, completed, retracted := callLedger(t, evs)
		if n := len(srv.Requests()); n != 4 || started["a"] != 4 || retracted["a"] != 3 || completed["a"] != 1 {
			t.Fatalf("%d requests; a: %d started, %d retracted, %d completed: %v", n, started["a"], retracted["a"], completed["a"], describe(evs))
		}
		if d := done(t, evs); d.Status != engine.TurnFailed {
			t.Errorf("turn %+v", d)
		}
		for _, c := range all[engine.ToolCallComplete](evs) {
			if !strings.HasPrefix(c.Result.Content, "Tool not executed: ") || c.Result.Category != "network" || c.Result.Success {
				t.Errorf("call %s of the broken stream: %+v", c.ID, c.Result)
			}
		}
	})
}

// CONTRACT.md §8.2: TurnUsage — one per provider call that reported usage,
// the compaction's summary request included: /compact announces it (step
// 0: no turn) and the session's totals count it and are saved; an
// auto-compaction inside a turn counts in the turn's usage, which the
// turn's TurnUsage events sum to.
func TestContract82CompactionRequestReportsUsage(t *testing.T) {
	t.Parallel()
	summary := fakemodel.Text("SUMMARY: three questions.")
	summary.Usage = &fakemodel.Usage{Prompt: 700, Completion: 30, CacheHit: 0, CacheMiss: 700}

	j := &totalsJournal{}
	srv := fakemodel.New(t, fakemodel.Text("One."), fakemodel.Text("Two."), fakemodel.Text("Three."), summary)
	h := newHarness(t, srv, func(o *engine.Options) { o.Journal = j })
	h.turn("first")
	h.turn("second")
	h.turn("third")
	before := h.eng.Snapshot().Usage
	h.eng.Submit(engine.CompactContext{})
	evs := next[engine.CompactionCompleted](t, h)
	us := all[engine.TurnUsage](evs)
	if len(us) != 1 || us[0].Step != 0 || us[0].Child || us[0].Unreported || us[0].Model == "" ||
		us[0].Usage.InputTokens != 700 || us[0].Usage.OutputTokens != 30 {
		t.Fatalf("compaction usage %+v: %v", us, describe(evs))
	}
	after := h.eng.Snapshot().Usage
	if after.InputTokens != before.InputTokens+700 || after.OutputTokens != before.OutputTokens+30 {
		t.Errorf("session usage %+v after the compaction, was %+v", after, before)
	}
	j.mu.Lock()
	saved := j.totals[len(j.totals)-1]
	j.mu.Unlock()
	if saved.InputTokens != after.InputTokens || saved.OutputTokens != after.OutputTokens {
		t.Errorf("saved totals %+v, session usage %+v", saved, after)
	}

	// Inside a turn.
	auto := fakemodel.New(t, fakemodel.Text(strings.Repeat("long answer ", 300)), fakemodel.Text(strings.Repeat("more ", 300)),
		summary, fakemodel.Text("fits now"))
	a := newHarness(t, auto, func(o *engine.Options) { o.ContextWindow = 7000; o.AutoCompactPercent = 70 })
	a.turn("one")
	a.turn("two")
	before = a.eng.Snapshot().Usage
	evs = a.turn("three")
	if len(all[engine.CompactionCompleted](evs)) != 1 {
		t.Fatalf("no auto-compaction: %v", describe(evs))
	}
	us = all[engine.TurnUsage](evs)
	var sum provider.Usage
	for _, u := range us {
		sum.Add(&u.Usage)
	}
	tc := done(t, evs)
	if len(us) != 2 || us[0].Usage.InputTokens != 700 || us[0].Step != 1 ||
		tc.Usage.InputTokens != sum.InputTokens || tc.Usage.InputTokens != 800 || tc.Usage.OutputTokens != 40 {
		t.Errorf("turn usage %+v from %+v", tc.Usage, us)
	}
	if s := a.eng.Snapshot().Usage; s.InputTokens != before.InputTokens+800 {
		t.Errorf("session usage %+v, was %+v", s, before)
	}
}
