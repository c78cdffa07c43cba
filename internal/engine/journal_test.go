package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// faultJournal records what the engine saves and fails on demand, like a
// disk that fills up.
type faultJournal struct {
	mu       sync.Mutex
	appends  [][]provider.Message
	rewrites [][]provider.Message
	failWhen func(msgs []provider.Message) bool // the first call it accepts starts the failures
	failing  bool
}

var errNoSpace = &os.PathError{Op: "write", Path: "session.jsonl", Err: syscall.ENOSPC}

func (j *faultJournal) Append(_ engine.SessionInfo, msgs ...provider.Message) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.failing || j.failWhen != nil && j.failWhen(msgs) {
		j.failing = true
		return errNoSpace
	}
	j.appends = append(j.appends, msgs)
	return nil
}

func (j *faultJournal) Rewrite(_ engine.SessionInfo, msgs []provider.Message) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.failing {
		return errNoSpace
	}
	j.rewrites = append(j.rewrites, append([]provider.Message(nil), msgs...))
	return nil
}

func (j *faultJournal) Compacted(_ engine.SessionInfo, _ int, summary provider.Message) error {
	return j.Append(engine.SessionInfo{}, summary)
}

func (j *faultJournal) saved() [][]provider.Message {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([][]provider.Message(nil), j.appends...)
}

func hasResult(msgs []provider.Message, id string) bool {
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == provider.BlockToolResult && b.ToolUseID == id {
				return true
			}
		}
	}
	return false
}

func writes(names ...string) fakemodel.Reply {
	var calls []fakemodel.Call
	for _, n := range names {
		calls = append(calls, fakemodel.Call{ID: "w_" + n, Name: "File", Args: `{"action":"write","path":"` + n + `","content":"x"}`})
	}
	return fakemodel.Tools(calls...)
}

// Each tool result is saved the moment its call completes — before it is
// announced and before the next call runs — not at the end of the batch.
func TestEachResultIsSavedAsItCompletes(t *testing.T) {
	t.Parallel()
	j := &faultJournal{}
	srv := fakemodel.New(t, writes("a.txt", "b.txt"), fakemodel.Text("done"))
	h := newHarness(t, srv, func(o *engine.Options) { o.Journal = j })
	h.eng.Submit(engine.SendMessage{Content: "write two files"})
	var order []string
	evs := h.collect(func(ev engine.Event) {
		if c, ok := ev.(engine.ToolCallComplete); ok {
			if savedAt(j.saved(), c.ID) < 0 {
				t.Errorf("%s was announced before it was saved on its own", c.ID)
			}
			order = append(order, c.ID)
		}
	})
	if tc := done(t, evs); tc.Status != engine.TurnCompleted || strings.Join(order, ",") != "w_a.txt,w_b.txt" {
		t.Fatalf("outcome %+v, order %v", tc, order)
	}
	// Saved one by one, in completion order; the history has them in call
	// order.
	saved := j.saved()
	a, b := savedAt(saved, "w_a.txt"), savedAt(saved, "w_b.txt")
	msgs := h.eng.Snapshot().Messages
	if a < 0 || b != a+1 || !hasResult(msgs[2:3], "w_a.txt") || !hasResult(msgs[3:4], "w_b.txt") {
		t.Errorf("saves at %d and %d; history %+v", a, b, msgs)
	}
}

// savedAt is the index of the save that recorded call id's result alone,
// or -1.
func savedAt(saves [][]provider.Message, id string) int {
	for i, s := range saves {
		if len(s) == 1 && hasResult(s, id) {
			return i
		}
	}
	return -1
}

// A save that fails mid-batch stops the turn: the next tool does not run,
// no further request is sent, and the error says exactly what was not
// saved.
func TestFailedSaveStopsTheTurn(t *testing.T) {
	t.Parallel()
	j := &faultJournal{failWhen: func(msgs []provider.Message) bool { return hasResult(msgs, "w_a.txt") }}
	srv := fakemodel.New(t, writes("a.txt", "b.txt"), fakemodel.Text("never"))
	h := newHarness(t, srv, func(o *engine.Options) { o.Journal = j })
	evs := h.turn("write two files")
	tc := done(t, evs)
	if tc.Status != engine.TurnFailed || tc.ErrorCategory != "state" ||
		!strings.Contains(tc.Error, "Not saved: the result of File (call w_a.txt)") || !strings.Contains(tc.Error, "no space left on device") {
		t.Fatalf("outcome %+v", tc)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); err != nil {
		t.Errorf("the first write should have run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the second write ran after the failed save: %v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests; none may follow a failed save", n)
	}
	var second engine.ToolOutcome
	for _, ev := range evs {
		if c, ok := ev.(engine.ToolCallComplete); ok && c.ID == "w_b.txt" {
			second = c.Result
		}
	}
	if !strings.Contains(second.Content, "the session could not be saved") || second.Category != "state" {
		t.Errorf("second call %+v", second)
	}

	// Once there is room again, the next save rewrites the whole history,
	// so the file has no gap where the failed saves were.
	j.mu.Lock()
	j.failing, j.failWhen = false, nil
	j.mu.Unlock()
	srv.Push(fakemodel.Text("saved now"))
	if tc := done(t, h.turn("again")); tc.Status != engine.TurnCompleted {
		t.Fatalf("next turn %+v", tc)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.rewrites) != 1 || !hasResult(j.rewrites[0], "w_a.txt") || !hasResult(j.rewrites[0], "w_b.txt") {
		t.Errorf("rewrites %d: %+v", len(j.rewrites), j.rewrites)
	}
}

// A user message that cannot be saved is never sent.
func TestUnsavedPromptIsNotSent(t *testing.T) {
	t.Parallel()
	j := &faultJournal{failWhen: func([]provider.Message) bool { return true }}
	srv := fakemodel.New(t, fakemodel.Text("never"))
	h := newHarness(t, srv, func(o *engine.Options) { o.Journal = j })
	tc := done(t, h.turn("hello there"))
	if tc.Status != engine.TurnFailed || !strings.Contains(tc.Error, "Not saved: the message hello there") || len(srv.Requests()) != 0 {
		t.Errorf("outcome %+v, %d requests", tc, len(srv.Requests()))
	}
}

// Two calls with one id: the first is answered, the second refused under
// an id of its own, so the history keeps one result per call.
func TestDuplicateCallIDIsRefused(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(
		fakemodel.Call{ID: "x", Name: "File", Args: `{"action":"write","path":"a.txt","content":"1"}`},
		fakemodel.Call{ID: "x", Name: "File", Args: `{"action":"write","path":"b.txt","content":"2"}`}), fakemodel.Text("ok"))
	h := newHarness(t, srv)
	evs := h.turn("write")
	results := map[string]engine.ToolOutcome{}
	for _, ev := range evs {
		if c, ok := ev.(engine.ToolCallComplete); ok {
			results[c.ID] = c.Result
		}
	}
	if !results["x"].Success || !results["x_dup2"].IsError || !strings.Contains(results["x_dup2"].Content, `duplicate tool call id "x"`) {
		t.Errorf("results %+v", results)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the duplicate ran: %v", err)
	}
	var ids []string
	for _, m := range srv.Requests()[1].Messages() {
		if m["role"] == "tool" {
			ids = append(ids, m["tool_call_id"].(string))
		}
	}
	if strings.Join(ids, ",") != "x,x_dup2" {
		t.Errorf("tool messages answer %v", ids)
	}
}

// A 100,000-character tool name is cut before it is echoed or kept.
func TestHugeToolNameIsBounded(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "n", Name: strings.Repeat("A", 100_000), Args: `{}`}), fakemodel.Text("ok"))
	h := newHarness(t, srv)
	evs := h.turn("call it")
	c, _ := last[engine.ToolCallComplete](evs)
	if len(c.Name) > 300 || len(c.Result.Content) > 2000 || !strings.Contains(c.Result.Content, "is not registered") ||
		!strings.Contains(c.Name, "tool name cut from 100000 bytes") {
		t.Errorf("name %d bytes, result %d bytes: %.300s", len(c.Name), len(c.Result.Content), c.Result.Content)
	}
	if n := len(srv.Requests()[1].Raw) - len(srv.Requests()[0].Raw); n > 4000 {
		t.Errorf("the next request grew by %d bytes", n)
	}
}
