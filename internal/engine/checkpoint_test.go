package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// recordingCheckpointer keeps the CallInfo of every Before and After and
// the order of the calls ("start", "before", "after", "end").
type recordingCheckpointer struct {
	mu     sync.Mutex
	before []engine.CallInfo
	calls  []engine.CallInfo
	steps  []string
}

func (r *recordingCheckpointer) step(s string) {
	r.mu.Lock()
	r.steps = append(r.steps, s)
	r.mu.Unlock()
}

func (r *recordingCheckpointer) Start(context.Context, engine.TurnInfo) { r.step("start") }
func (r *recordingCheckpointer) End(context.Context, engine.TurnInfo)   { r.step("end") }
func (r *recordingCheckpointer) Before(_ context.Context, _ engine.TurnInfo, c engine.CallInfo) {
	r.step("before")
	r.mu.Lock()
	r.before = append(r.before, c)
	r.mu.Unlock()
}
func (r *recordingCheckpointer) After(_ context.Context, _ engine.TurnInfo, c engine.CallInfo) {
	r.step("after")
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
}

// beforeHook has a tool_call_before hook that lets every call through.
type beforeHook struct{}

func (beforeHook) Has(event string) bool { return event == engine.HookToolBefore }
func (beforeHook) Run(context.Context, string, engine.HookCall) engine.HookVerdict {
	return engine.HookVerdict{}
}
func (beforeHook) Go(string, engine.HookCall, func([]string)) {}

// A checkpointer gets a call's result metadata (a File call's mutation
// names what it wrote) only when the call succeeded and no
// tool_call_before hook ran ahead of it: a hook's command, like a failed
// call, may have changed anything.
func TestCheckpointerGetsMetadataOnlyWhenItIsTheWholeStory(t *testing.T) {
	t.Parallel()
	write := func(id, path string) fakemodel.Reply {
		args, _ := json.Marshal(map[string]any{"action": "write", "path": path, "content": "x\n"})
		return fakemodel.Tools(fakemodel.Call{ID: id, Name: "File", Args: string(args)})
	}
	for _, tt := range []struct {
		name   string
		hooks  engine.Hooks
		path   string
		meta   bool
		writes string // what Before is told the call will write
	}{
		{"a write", nil, "a.txt", true, "a.txt"},
		{"a failed write", nil, "../outside.txt", false, "../outside.txt"},
		{"a write after a hook", beforeHook{}, "a.txt", false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cp := &recordingCheckpointer{}
			h := newHarness(t, fakemodel.New(t, write("w1", tt.path), fakemodel.Text("done")), func(o *engine.Options) {
				o.Checkpoints, o.Hooks = cp, tt.hooks
			})
			h.turn("write")
			cp.mu.Lock()
			defer cp.mu.Unlock()
			if len(cp.calls) != 1 || cp.calls[0].ID != "w1" || (cp.calls[0].Metadata != nil) != tt.meta {
				t.Fatalf("after: %+v", cp.calls)
			}
			if len(cp.before) != 1 || cp.before[0].ID != "w1" || strings.Join(cp.before[0].Writes, ",") != tt.writes {
				t.Fatalf("before: %+v, want writes %q", cp.before, tt.writes)
			}
			if got := strings.Join(cp.steps, ","); got != "start,before,after,end" {
				t.Fatalf("steps %s", got)
			}
		})
	}
}

// Every conversation turn starts the checkpointer as it begins, before
// the model is asked (so the base state can be taken during the request),
// and ends it, whether the turn changed anything, changed nothing, or was
// cancelled while the model was still answering: a recorder's background
// work never outlives its turn unannounced.
func TestCheckpointerStartsAndEndsEveryTurn(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		reply  fakemodel.Reply
		cancel bool
		status engine.TurnStatus
	}{
		{"a text turn", fakemodel.Text("hello"), false, engine.TurnCompleted},
		{"cancelled during the request", fakemodel.Reply{Text: strings.Repeat("word ", 200), Chunk: 5, Delay: 10 * time.Millisecond}, true, engine.TurnInterrupted},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cp := &recordingCheckpointer{}
			var startedBeforeRequest bool
			srv := fakemodel.New(t)
			srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
				cp.mu.Lock()
				startedBeforeRequest = strings.Join(cp.steps, ",") == "start"
				cp.mu.Unlock()
				return tt.reply
			})
			h := newHarness(t, srv, func(o *engine.Options) { o.Checkpoints = cp })
			h.eng.Submit(engine.SendMessage{Content: "hi"})
			deltas := 0
			tc := done(t, h.collect(func(ev engine.Event) {
				if _, ok := ev.(engine.MessageDelta); ok && tt.cancel {
					if deltas++; deltas == 3 {
						h.eng.Cancel()
					}
				}
			}))
			if tc.Status != tt.status {
				t.Fatalf("status %v", tc.Status)
			}
			cp.mu.Lock()
			defer cp.mu.Unlock()
			if got := strings.Join(cp.steps, ","); got != "start,end" || !startedBeforeRequest {
				t.Fatalf("steps %s (started before the request: %v)", got, startedBeforeRequest)
			}
		})
	}
}

// blockingCheckpointer's After of the first call waits until the model is
// asked again, then notes whether the second call's file exists yet.
type blockingCheckpointer struct {
	recordingCheckpointer
	ws            string
	asked         chan struct{}
	sawAsked      bool
	secondWritten bool
}

func (b *blockingCheckpointer) After(ctx context.Context, t engine.TurnInfo, c engine.CallInfo) {
	if c.ID == "w1" {
		asked := false
		select {
		case <-b.asked:
			asked = true
		case <-time.After(10 * time.Second):
		}
		_, err := os.Stat(filepath.Join(b.ws, "b.txt"))
		b.mu.Lock()
		b.sawAsked, b.secondWritten = asked, err == nil
		b.mu.Unlock()
	}
	b.recordingCheckpointer.After(ctx, t, c)
}

// A File write's result goes back to the model while the checkpoint after
// it is taken (it looks only at the file the call named), and the turn's
// next write waits for that checkpoint, so each records exactly its own
// change; the turn's end waits for the last one.
func TestAFileWritesCheckpointRunsWhileTheModelIsAsked(t *testing.T) {
	t.Parallel()
	write := func(id, path string) fakemodel.Reply {
		args, _ := json.Marshal(map[string]any{"action": "write", "path": path, "content": "x\n"})
		return fakemodel.Tools(fakemodel.Call{ID: id, Name: "File", Args: string(args)})
	}
	cp := &blockingCheckpointer{asked: make(chan struct{})}
	srv := fakemodel.New(t)
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
		switch len(srv.Requests()) {
		case 1:
			return write("w1", "a.txt")
		case 2:
			close(cp.asked)
			return write("w2", "b.txt")
		}
		return fakemodel.Text("done")
	})
	h := newHarness(t, srv, func(o *engine.Options) { o.Checkpoints = cp })
	cp.ws = h.ws
	h.turn("write two files")
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if !cp.sawAsked || cp.secondWritten {
		t.Fatalf("after the first write: model asked again %v, second file written %v", cp.sawAsked, cp.secondWritten)
	}
	if got := strings.Join(cp.steps, ","); got != "start,before,after,after,end" {
		t.Fatalf("steps %s", got)
	}
}
