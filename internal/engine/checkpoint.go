package engine

import (
	"context"
	"encoding/json"
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
}

// Checkpointer records the workspace around a turn's changes: Before ahead
// of the turn's first call that may change it (any call not read-only:
// File writes, Bash, Run, MCP tools that write), After each such call, End
// when the turn is over. It never fails a turn; a recorder that cannot
// record says so itself.
type Checkpointer interface {
	Before(ctx context.Context, turn TurnInfo)
	After(ctx context.Context, turn TurnInfo, call CallInfo)
	End(ctx context.Context, turn TurnInfo)
}

// checkpointTimeout bounds one recording step; a cancelled turn still
// records what its calls changed.
const checkpointTimeout = 30 * time.Second

// checkpointBefore runs ahead of a turn's first call that may change the
// workspace. A host call (RunToolCall) belongs to no turn of the
// conversation, so there is nothing to take it back to.
func (t *turn) checkpointBefore(ctx context.Context, p *planned) {
	cp := t.e.opts.Checkpoints
	if cp == nil || p.readOnly || p.search || t.direct || t.checkpointed {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkpointTimeout)
	defer cancel()
	t.checkpointed = true
	cp.Before(ctx, t.info)
}

// checkpointAfter runs after such a call, with its result's metadata.
func (t *turn) checkpointAfter(ctx context.Context, p *planned, meta map[string]any, err error) {
	cp := t.e.opts.Checkpoints
	if cp == nil || p.readOnly || p.search || t.direct {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkpointTimeout)
	defer cancel()
	if err != nil || t.e.hooks(HookToolBefore) != nil {
		meta = nil
	}
	cp.After(ctx, t.info, CallInfo{ID: p.call.id, Tool: p.call.name, Input: p.input, Metadata: meta})
}

func (t *turn) checkpointEnd() {
	if cp := t.e.opts.Checkpoints; cp != nil && t.checkpointed {
		ctx, cancel := context.WithTimeout(context.Background(), checkpointTimeout)
		defer cancel()
		cp.End(ctx, t.info)
	}
}
