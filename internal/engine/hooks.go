package engine

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools"
)

// The hook events the engine fires (CONTRACT.md §17.4); the host fires
// session_start and shell_env itself.
const (
	HookMessageSubmit = "message_submit"
	HookToolBefore    = "tool_call_before"
	HookToolAfter     = "tool_call_after"
	HookTurnEnd       = "turn_end"
	HookNotification  = "notification"
)

// Notification kinds.
const (
	NotifyApprovalWaiting = "approval_waiting"
	NotifyTurnDone        = "turn_done"
)

// Hooks runs the user's hooks at the engine's seams. Run is bounded by each
// hook's timeout and never fails a turn: a hook that fails, hangs or answers
// nonsense is reported in the verdict's Notices and the turn goes on. Go
// runs an event's hooks in the background, owned by the implementation,
// and gives report (when not nil) the notices of those that failed.
type Hooks interface {
	Has(event string) bool
	Run(ctx context.Context, event string, call HookCall) HookVerdict
	Go(event string, call HookCall, report func(notices []string))
}

// HookCall is what a hook is told about (the JSON payload's facts).
type HookCall struct {
	SessionID string
	TurnID    string
	Message   string          // message_submit: the user's message
	Tool      string          // tool events: the tool's name
	CallID    string          // tool events
	Input     json.RawMessage // tool events: the call's arguments
	Result    *ToolOutcome    // tool_call_after
	Turn      *TurnComplete   // turn_end
	Kind      string          // notification: approval_waiting, turn_done
	Text      string          // notification: one line for a person
}

// HookVerdict is what an event's hooks decided together: a block wins over
// ask, ask over proceeding.
type HookVerdict struct {
	Block bool
	Ask   bool
	// Reason says why (a block or an ask); the model reads it for tool
	// events.
	Reason string
	// Message is message_submit's rewritten message, or tool_call_after's
	// note for the model, or a line for the user (turn_end).
	Message string
	// Notices are lines for the user: hooks that failed, timed out or
	// answered something that could not be read.
	Notices []string
}

// hookTimeoutCeiling bounds a seam a hook runs at even when the turn is
// cancelled, so a cancel still reports what it cut short.
const hookTimeoutCeiling = 10 * time.Minute

func (e *Engine) hooks(event string) Hooks {
	if h := e.opts.Hooks; h != nil && h.Has(event) {
		return h
	}
	return nil
}

func (e *Engine) hookNotices(v HookVerdict) {
	for _, n := range v.Notices {
		e.emit(Status{Message: n, Keep: true})
	}
}

// lateHookNotices are the failures of hooks that ran in the background,
// handed to the Run loop to emit (it owns the event stream, which a turn
// may have left).
type lateHookNotices []string

func (lateHookNotices) isOp() {}

// reportLate is a background hook's report: its failures become statuses
// as it finishes, between turns too (nothing when the engine has stopped).
func (e *Engine) reportLate(notices []string) { e.Submit(lateHookNotices(notices)) }

// MessageBlocked is the error of a message a message_submit hook blocked
// (CONTRACT.md §17.4), for a turn and for the one-shot exec alike.
func MessageBlocked(reason string) string {
	return "Message not sent: a message_submit hook blocked it: " + reasonOr(reason)
}

// submitHooks runs message_submit for the user's own message: it may
// rewrite it or block it (the turn then fails with the hook's reason and
// the message is not added). ok is false when it was blocked.
func (t *turn) submitHooks(ctx context.Context, send SendMessage) (content string, ok bool) {
	h := t.e.hooks(HookMessageSubmit)
	if h == nil || t.untrusted {
		return send.Content, true
	}
	v := h.Run(ctx, HookMessageSubmit, HookCall{SessionID: t.info.SessionID, TurnID: t.id, Message: send.Content})
	t.e.hookNotices(v)
	if v.Block {
		// The envelope's categories are a closed set (CONTRACT.md §8.4): the
		// user's own hook did not accept the message as input.
		t.fail(ErrorEnvelope{Message: MessageBlocked(v.Reason), Category: "invalid_input", Severity: "warning", Recoverable: true})
		return "", false
	}
	if v.Message != "" && v.Message != send.Content {
		t.e.emit(Status{Message: "A message_submit hook rewrote the message; the model receives its text.", Keep: true})
		return v.Message, true
	}
	return send.Content, true
}

// beforeHooks runs tool_call_before for a call about to run: a block
// refuses it with the hook's reason (the model reads it; nothing runs), an
// ask makes it a hold, as a permission rule's ask does (applyRules): Ask
// shows the card, and Auto-Review, Full Access and a headless run refuse
// it. It reports whether the call was refused.
func (t *turn) beforeHooks(ctx context.Context, p *planned) bool {
	h := t.e.hooks(HookToolBefore)
	if h == nil || p.search {
		return false
	}
	v := h.Run(ctx, HookToolBefore, HookCall{SessionID: t.info.SessionID, TurnID: t.id, Tool: p.call.name,
		CallID: p.call.id, Input: p.input})
	t.e.hookNotices(v)
	switch {
	case v.Block:
		p.blocked = tools.PermissionDenied("Tool '%s' was blocked by a tool_call_before hook: %s"+
			" Do not retry the same call; present what you intended or choose another way.", p.call.name, sentence(reasonOr(v.Reason)))
		return true
	case v.Ask:
		if p.approval != tools.Explicit { // a protected write keeps its explicit grant
			p.approval = tools.Required
		}
		p.need, p.parallel = posture.NeedHold, false
		p.reason = "a tool_call_before hook asks for a person's approval: " + reasonOr(v.Reason)
	}
	return false
}

// afterHooks runs tool_call_after for a call that ran; a hook's note is
// added to the result the model reads.
func (t *turn) afterHooks(ctx context.Context, p *planned) {
	h := t.e.hooks(HookToolAfter)
	if h == nil || p.search {
		return
	}
	o := p.outcome
	v := h.Run(ctx, HookToolAfter, HookCall{SessionID: t.info.SessionID, TurnID: t.id, Tool: p.call.name,
		CallID: p.call.id, Input: p.input, Result: &o})
	t.e.hookNotices(v)
	note := v.Message
	if note == "" && v.Block {
		note = v.Reason
	}
	if note != "" {
		p.outcome.Content += "\n\n[tool_call_after hook] " + note
	}
}

// endHooks runs turn_end (synchronously: its answer and failures belong to
// this turn) and the turn-done notification (in the background).
func (t *turn) endHooks() {
	done := t.outcome
	if h := t.e.hooks(HookTurnEnd); h != nil {
		ctx, cancel := context.WithTimeout(context.Background(), hookTimeoutCeiling)
		v := h.Run(ctx, HookTurnEnd, HookCall{SessionID: t.info.SessionID, TurnID: t.id, Turn: &done})
		cancel()
		t.e.hookNotices(v)
		if v.Message != "" {
			t.e.emit(Status{Message: "turn_end hook: " + v.Message, Keep: true})
		}
	}
	t.notify(NotifyTurnDone, "codewhale: the turn "+string(done.Status))
}

// notify fires the notification hooks in the background. An interactive
// host reads the engine's events between turns too, so their failures
// reach it as statuses when they finish; a headless host stops reading at
// the turn's end, and prints them as it exits (hooks.Runner.Wait).
func (t *turn) notify(kind, text string) {
	if h := t.e.hooks(HookNotification); h != nil {
		var report func([]string)
		if t.e.opts.Interactive {
			report = t.e.reportLate
		}
		h.Go(HookNotification, HookCall{SessionID: t.info.SessionID, TurnID: t.id, Kind: kind, Text: text}, report)
	}
}

func reasonOr(r string) string {
	if strings.TrimSpace(r) == "" {
		return "(the hook gave no reason)"
	}
	return strings.TrimSpace(r)
}

func sentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}
