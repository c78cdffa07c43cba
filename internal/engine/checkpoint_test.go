package engine_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// recordingCheckpointer keeps the CallInfo of every After.
type recordingCheckpointer struct {
	mu    sync.Mutex
	calls []engine.CallInfo
}

func (r *recordingCheckpointer) Before(context.Context, engine.TurnInfo) {}
func (r *recordingCheckpointer) End(context.Context, engine.TurnInfo)    {}
func (r *recordingCheckpointer) After(_ context.Context, _ engine.TurnInfo, c engine.CallInfo) {
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
func (beforeHook) Go(string, engine.HookCall) {}

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
		name  string
		hooks engine.Hooks
		path  string
		meta  bool
	}{
		{"a write", nil, "a.txt", true},
		{"a failed write", nil, "../outside.txt", false},
		{"a write after a hook", beforeHook{}, "a.txt", false},
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
		})
	}
}
