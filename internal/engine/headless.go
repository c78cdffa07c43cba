package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/codewhale/codewhale/internal/provider"
)

// Reply is what one headless turn produced.
type Reply struct {
	// Text is the trimmed text of the turn's last assistant message that
	// has text.
	Text string
	// Done is the turn's closing event.
	Done TurnComplete
}

// ErrStopped means the engine's event stream closed before the turn ended
// (Run returned: its context ended or Shutdown arrived).
var ErrStopped = errors.New("the engine stopped before the turn ended")

// RunTurn is the one way a host without a screen runs a turn: it submits
// send, hands every event to observe (nil to ignore them) and returns when
// the turn's TurnComplete arrives. Cancelling ctx interrupts the turn;
// RunTurn keeps reading until the engine has closed the turn, so the
// history and journal are complete when it returns. The caller must be the
// only reader of Events and must not start a turn while one runs. Run must
// be running.
//
// Reply.Text is the text of the last assistant message with text that the
// turn added to the history (a kept interrupted reply included), read from the
// SessionUpdated appends: not the streamed deltas, which a retried request
// withdraws and which one answer may split into several text blocks
// around its reasoning.
func (e *Engine) RunTurn(ctx context.Context, send SendMessage, observe func(Event)) (Reply, error) {
	stop := context.AfterFunc(ctx, e.Cancel)
	defer stop()
	n := e.historyLen() // where the turn's first append lands
	e.Submit(send)
	text := ""
	for ev := range e.Events() {
		if observe != nil {
			observe(ev)
		}
		switch ev := ev.(type) {
		case TurnStarted:
			if ctx.Err() != nil { // cancelled before the turn had a cancel func
				e.Cancel()
			}
		case SessionUpdated:
			if ev.Start == n { // an append; a replacement (compaction) adds no message of the turn
				text = lastAssistantText(ev.Messages, text)
			}
			n = ev.Start + len(ev.Messages)
		case TurnComplete:
			return Reply{Text: text, Done: ev}, nil
		}
	}
	return Reply{Text: text}, ErrStopped
}

// lastAssistantText is the trimmed text of the last assistant message in
// msgs that has text, or text when there is none.
func lastAssistantText(msgs []provider.Message, text string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if r := msgs[i].Role; r != provider.RoleAssistant && r != provider.RoleAssistantInterrupted {
			continue
		}
		if s := strings.TrimSpace(msgs[i].Text()); s != "" {
			return s
		}
	}
	return text
}

// historyLen is the length of the history.
func (e *Engine) historyLen() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.sess.Messages)
}
