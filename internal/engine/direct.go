package engine

import (
	"context"
	"encoding/json"
)

// RunToolCall runs one tool call that the host asks for itself, outside any
// model turn (the TUI's `!command`): the same gates as a model's call —
// registry, allow/deny lists, permission rules, posture and approval card,
// the tool's own sandbox — announced by ToolCallStarted, any
// ApprovalRequired and ToolCallProgress, and one ToolCallComplete with ID.
// Nothing enters the history or the session file: the host decides what to
// do with the result. It takes the turn slot, so it is refused while a turn
// runs (docs/CONTRACT.md, "Host tool calls").
type RunToolCall struct {
	ID    string // the host's id for the call; "" picks one
	Name  string
	Input json.RawMessage
}

func (RunToolCall) isOp() {}

// directRefusedText is the Error of a RunToolCall sent while a turn runs.
const directRefusedText = "A turn is running; run the command when it ends, or press Esc to interrupt it first."

// runToolCall runs op as a one-call batch of a turn that sends nothing to
// the model. Its final event is the call's ToolCallComplete, emitted once
// the slot is free, so a host may send its next message on it.
func (e *Engine) runToolCall(ctx context.Context, op RunToolCall) (final Event) {
	t := &turn{e: e, id: e.opts.NewID(), direct: true}
	e.mu.Lock()
	t.autoApprove = e.opts.AutoApprove
	t.adopt(e.set, e.setGen)
	clear(e.denied) // as at a turn's start: denials answer the model's retries
	model := e.sess.Model
	e.mu.Unlock()
	t.budget = t.directBudget(model)
	t.toolset, t.cat = e.surface(t.env(), nil)
	if op.ID == "" {
		op.ID = "host_" + e.opts.NewID()
	}
	in := op.Input
	if len(in) == 0 {
		in = json.RawMessage("{}")
	}
	p := t.plan(pendingCall{id: op.ID, name: op.Name, input: in})
	e.emit(ToolCallStarted{ID: op.ID, Name: op.Name, Input: p.input})
	e.setState(RunningTools)
	t.execute(ctx, p)
	if !p.done {
		p.finish(ToolOutcome{Content: notExecutedText, Category: "cancelled"}, e.opts.Clock())
		t.complete(p)
	}
	return p.event
}

// directBudget is the result budget of a host call: the route's, when a
// client can be built for the model, else the smaller one. A host call
// needs no API key.
func (t *turn) directBudget(model string) int {
	c, err := t.e.newClient(model)
	if err != nil {
		return smallResultBudget
	}
	return resultBudget(t.e.contextWindow(c))
}
