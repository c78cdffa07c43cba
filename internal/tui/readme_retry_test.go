package tui

import (
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
)

// README.md "When the provider misbehaves": a retry shows on the status line as `Rate limited (429) — retrying in
// 27 s · attempt 2/4`, counting down, with the phase strip saying `retrying…` and `Esc to interrupt`.
func TestREADMERetryStatusLine(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.submit("q")
	d.events(engine.TurnStarted{}, engine.Retry{Attempt: 2, Max: 4, Reason: "Rate limited (429)", Wait: 27 * time.Second})
	d.mustShow("Rate limited (429) — retrying in 27 s · attempt 2/4", "retrying…", "Esc to interrupt")
	d.clock.Advance(2 * time.Second)
	d.mustShow("Rate limited (429) — retrying in 25 s · attempt 2/4")
}
