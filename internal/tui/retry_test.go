package tui

import (
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
)

// A retry shows on the status line; a retraction takes back the cells the
// failed attempt streamed, so only the re-sent answer stays on screen.
func TestRetryStatusAndRetraction(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.submit("q")
	d.events(engine.TurnStarted{}, engine.ThinkingStarted{}, engine.ThinkingDelta{Content: "pondering"}, engine.ThinkingComplete{},
		engine.MessageStarted{}, engine.MessageDelta{Content: "alpha beta"},
		engine.ToolCallStarted{ID: "c1", Name: "File", Input: []byte(`{"action":"read","path":"a.go"}`)})
	d.mustShow("alpha beta", "reasoning")
	d.events(engine.Retract{TextChars: 10, ToolIDs: []string{"c1"}, Reason: "Stream dropped"},
		engine.Retry{Attempt: 2, Max: 5, Reason: "Rate limited (429)", Wait: 27 * time.Second})
	d.mustShow("Rate limited (429) — retrying in 27 s · attempt 2/5")
	d.clock.Advance(5 * time.Second) // the wait counts down
	d.mustShow("Rate limited (429) — retrying in 22 s · attempt 2/5")
	d.mustNotShow("alpha beta", "a.go", "reasoning")
	if d.m.turn.running != 0 {
		t.Errorf("running = %d after the retraction", d.m.turn.running)
	}
	d.events(engine.MessageStarted{}, engine.MessageDelta{Content: "after reset ok"}, engine.MessageComplete{},
		engine.TurnComplete{Status: engine.TurnCompleted})
	d.mustShow("after reset ok")
	d.mustNotShow("alpha beta")
}

// Start-up notices (a quarantined or refused task record) are shown.
func TestStartupNoticesAreShown(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 120, 24, func(o *Options) {
		o.Notices = []string{"task store: not loaded: task_1.json uses schema_version 99"}
	})
	d.mustShow("task store: not loaded: task_1.json uses schema_version 99")
}
