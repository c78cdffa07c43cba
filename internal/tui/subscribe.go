package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
)

// DefaultFrame is the minimum time between two event batches: 60 batches a
// second at most, so streaming at any token rate redraws at a bounded frame
// rate while no event is ever dropped.
const DefaultFrame = time.Second / 60

// eventsMsg carries every engine event that was queued when it was built,
// in order. closed reports that the engine's stream ended.
type eventsMsg struct {
	events []engine.Event
	closed bool
}

// subscription turns the engine's event channel into batched tea messages.
// One read is outstanding at a time: the model re-arms it after handling a
// batch, so last is only touched by that one command at a time.
type subscription struct {
	ch    <-chan engine.Event
	frame time.Duration
	last  time.Time
}

// next blocks for the first event, then keeps collecting until one frame
// has passed since the previous batch, draining whatever else is queued.
func (s *subscription) next() tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-s.ch
		if !ok {
			return eventsMsg{closed: true}
		}
		batch := []engine.Event{ev}
		wait := time.Until(s.last.Add(s.frame))
		if wait <= 0 {
			batch, ok = drain(s.ch, batch)
		} else {
			batch, ok = collect(s.ch, batch, wait)
		}
		s.last = time.Now()
		return eventsMsg{events: batch, closed: !ok}
	}
}

// drain appends the events already queued, without blocking.
func drain(ch <-chan engine.Event, batch []engine.Event) ([]engine.Event, bool) {
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return batch, false
			}
			batch = append(batch, ev)
		default:
			return batch, true
		}
	}
}

// collect appends events until wait passes or the channel closes.
func collect(ch <-chan engine.Event, batch []engine.Event, wait time.Duration) ([]engine.Event, bool) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return batch, false
			}
			batch = append(batch, ev)
		case <-t.C:
			return drain(ch, batch)
		}
	}
}
