package engine

import (
	"context"
	"encoding/json"
	"log/slog"
	"runtime/debug"
	"time"
)

// TurnInfo names a turn for a Checkpointer: MessageIndex is where the
// turn's user message sits in the history, so the conversation can be cut
// back to before it.
type TurnInfo struct {
	SessionID    string
	TurnID       string
	Prompt       string
	MessageIndex int
}

// CallInfo names a tool call for a Checkpointer. Metadata is its result's
// metadata: a File call's file.mutation names exactly the files it
// changed, so a recorder need not look at the rest. It is nil when the
// call failed or a tool_call_before hook ran ahead of it (a hook's command
// may have changed anything), and then the whole workspace is looked at.
type CallInfo struct {
	ID       string
	Tool     string
	Input    json.RawMessage
	Metadata map[string]any
	// Writes (Before only) are the files the call says, before it runs,
	// are all it will change (tools.Call.Writes: a File write, edit or
	// patch); nil when it may change anything, or a tool_call_before hook
	// runs ahead of it.
	Writes []string
}

// Checkpointer records the workspace around a turn's changes: Start when
// the turn begins (the user's message is in, the first request not yet
// sent), so the turn's base state can be taken while the model is asked —
// it must return at once; Before ahead of the turn's first call that may
// change the workspace (any call not read-only: File writes, Bash, Run,
// MCP tools that write), which must not return before that state is
// recorded; After each such call — for a File call that named its files
// and succeeded, while the model is asked again, and always finished
// before the turn's next such call runs and before End; End when the turn
// is over (also after a Start with no Before). The calls of one turn never
// overlap. It never fails a turn; a recorder that cannot record says so
// itself.
type Checkpointer interface {
	Start(ctx context.Context, turn TurnInfo)
	Before(ctx context.Context, turn TurnInfo, call CallInfo)
	After(ctx context.Context, turn TurnInfo, call CallInfo)
	End(ctx context.Context, turn TurnInfo)
}

// checkpointTimeout bounds one recording step; a cancelled turn still
// records what its calls changed.
const checkpointTimeout = 30 * time.Second

// checkpointStart runs when a conversation turn begins: the recorder may
// take the turn's base state while the model is asked. It outlives a
// cancelled turn's context only until checkpointEnd.
func (t *turn) checkpointStart(ctx context.Context) {
	cp := t.e.opts.Checkpoints
	if cp == nil || t.direct {
		return
	}
	ctx, t.checkpointStop = context.WithTimeout(context.WithoutCancel(ctx), checkpointTimeout)
	cp.Start(ctx, t.info)
}

// checkpointBefore runs ahead of every call that may change the
// workspace: the previous such call's recording is finished first, and
// ahead of the turn's first one the state before it is recorded. A host
// call (RunToolCall) belongs to no turn of the conversation, so there is
// nothing to take it back to.
func (t *turn) checkpointBefore(ctx context.Context, p *planned) {
	cp := t.e.opts.Checkpoints
	if cp == nil || p.readOnly || p.search || t.direct {
		return
	}
	t.checkpointWait()
	if t.checkpointed {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkpointTimeout)
	defer cancel()
	t.checkpointed = true
	call := CallInfo{ID: p.call.id, Tool: p.call.name, Input: p.input}
	if p.prepared != nil && t.e.hooks(HookToolBefore) == nil {
		call.Writes = p.prepared.Writes
	}
	cp.Before(ctx, t.info, call)
}

// checkpointAfter runs after such a call, with its result's metadata. A
// call that named what it would write and did so (a File write, edit or
// patch) is recorded while its result goes back to the model — the
// recording looks only at those files, and the turn's next call that may
// change the workspace, or its end, waits for it — so the write's result
// does not wait for git; any other call is recorded before its result is
// given (a Bash call's changes go on to the language servers, whose report
// the next request carries).
func (t *turn) checkpointAfter(ctx context.Context, p *planned, meta map[string]any, err error) {
	cp := t.e.opts.Checkpoints
	if cp == nil || p.readOnly || p.search || t.direct {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkpointTimeout)
	hooked := t.e.hooks(HookToolBefore) != nil
	if err != nil || hooked {
		meta = nil
	}
	call := CallInfo{ID: p.call.id, Tool: p.call.name, Input: p.input, Metadata: meta}
	if meta == nil || p.prepared == nil || p.prepared.Writes == nil {
		defer cancel()
		cp.After(ctx, t.info, call)
		return
	}
	done := make(chan struct{})
	t.checkpointPending = done
	go func() {
		defer close(done)
		defer cancel()
		defer func() {
			if r := recover(); r != nil {
				slog.Error("checkpoint after a call panicked", "turn", t.id, "call", call.ID, "panic", r, "stack", string(debug.Stack()))
			}
		}()
		cp.After(ctx, t.info, call)
	}()
}

// checkpointWait returns once the last call's recording is finished. It
// only reads checkpointPending, which is set only by a File call (never
// one of a parallel group), so parallel calls may wait at once.
func (t *turn) checkpointWait() {
	if done := t.checkpointPending; done != nil {
		<-done
	}
}

func (t *turn) checkpointEnd() {
	t.checkpointWait()
	if cp := t.e.opts.Checkpoints; cp != nil && (t.checkpointed || t.checkpointStop != nil) {
		ctx, cancel := context.WithTimeout(context.Background(), checkpointTimeout)
		defer cancel()
		cp.End(ctx, t.info)
	}
	if t.checkpointStop != nil {
		t.checkpointStop()
	}
}
