package engine

import (
	"context"
	"fmt"

	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools/budget"
)

// historyBlockFactor sizes the bound on one text block (or tool input) of
// the history at this many result budgets: a pasted log or a written file
// may be long, but not tens of megabytes in every request.
const historyBlockFactor = 4

// fitHistory cuts every block of the history that is over its budget — a
// tool result over the per-result budget (a session written before results
// were bounded, or a 40 MB line), a text or tool input over
// historyBlockFactor budgets — to that budget, each with a receipt of what
// was cut (budget.Content). The cut applies to the history the requests are
// built from; the session file keeps the original. It returns how many
// blocks it cut.
func (e *Engine) fitHistory(chars int) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	names := map[string]string{}
	cut := 0
	for i := range e.sess.Messages {
		m := &e.sess.Messages[i]
		own := false
		for j := range m.Content {
			b := m.Content[j]
			if b.Type == provider.BlockToolUse {
				names[b.ID] = b.Name
			}
			if !fitBlock(&b, names, chars) {
				continue
			}
			if !own {
				// Snapshots handed out earlier share the blocks; never
				// change them under their holders.
				m.Content, own = append([]provider.Block(nil), m.Content...), true
			}
			m.Content[j] = b
			cut++
		}
	}
	return cut
}

// fitBlock cuts one block in place; true when it changed it. Byte length
// bounds the rune count, so blocks under the budget cost one comparison.
func fitBlock(b *provider.Block, names map[string]string, chars int) bool {
	big := historyBlockFactor * chars
	switch {
	case b.Type == provider.BlockToolResult && len(b.Content) > chars && budget.Runes(b.Content) > chars:
		name := names[b.ToolUseID]
		if name == "" {
			name = "tool"
		}
		b.Content = budget.Content(name, b.Content, chars)
	case b.Type == provider.BlockText && len(b.Text) > big && budget.Runes(b.Text) > big:
		b.Text = budget.Content("message", b.Text, big)
	case b.Type == provider.BlockThinking && len(b.Thinking) > big && budget.Runes(b.Thinking) > big:
		b.Thinking = budget.Content("reasoning", b.Thinking, big)
	case b.Type == provider.BlockToolUse && len(b.Input) > big && budget.Runes(string(b.Input)) > big:
		b.Input = []byte(budget.Content(b.Name+" input", string(b.Input), big))
	default:
		return false
	}
	return true
}

// overBudget is the refusal of a request that would not fit the model's
// window even after cutting and compacting: it is never sent.
func overBudget(est, window int) ErrorEnvelope {
	return ErrorEnvelope{Message: fmt.Sprintf("Not sent: this request would be about %d tokens, more than the model's %d-token window, "+
		"even after oversized items were cut and the context was compacted. Run /compact or /clear, or start a new session.", est, window),
		Category: "invalid_input", Severity: "error"}
}

// prepare builds the step's request: oversized history items are cut first,
// auto-compaction runs when due, and a request still over the window is
// refused — the turn fails without sending it.
func (t *turn) prepare(ctx context.Context) (*provider.Request, bool) {
	if n := t.e.fitHistory(t.resultBudget()); n > 0 {
		t.e.emit(Status{Message: fmt.Sprintf("Cut %d oversized item(s) in the history to the context budget for the model; the session file keeps them whole.", n)})
	}
	req := t.buildRequest()
	if t.maybeAutoCompact(ctx, req) {
		req = t.buildRequest()
	}
	window := t.e.contextWindow(t.client)
	if est := estimateTokens(req.Messages, req.System, req.Tools); est > window {
		t.fail(overBudget(est, window))
		return nil, false
	}
	return req, true
}
