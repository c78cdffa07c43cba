package engine

import (
	"context"
	"errors"
	"strings"
)

// Reply is what one headless turn produced.
type Reply struct {
	// Text is the trimmed text of the turn's last assistant message.
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
func (e *Engine) RunTurn(ctx context.Context, send SendMessage, observe func(Event)) (Reply, error) {
	stop := context.AfterFunc(ctx, e.Cancel)
	defer stop()
	e.Submit(send)
	var text strings.Builder
	for ev := range e.Events() {
		if observe != nil {
			observe(ev)
		}
		switch ev := ev.(type) {
		case TurnStarted:
			if ctx.Err() != nil { // cancelled before the turn had a cancel func
				e.Cancel()
			}
		case MessageStarted:
			text.Reset()
		case MessageDelta:
			text.WriteString(ev.Content)
		case TurnComplete:
			return Reply{Text: strings.TrimSpace(text.String()), Done: ev}, nil
		}
	}
	return Reply{Text: strings.TrimSpace(text.String())}, ErrStopped
}
