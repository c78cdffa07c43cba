package agent

import (
	"context"

	"github.com/codewhale/codewhale/internal/provider"
)

// Spawner starts child runs. The app layer implements it over the engine;
// this package never sees an engine, so tools keep their one-way arrow
// (docs/ARCHITECTURE.md, "Allowed arrows").
type Spawner interface {
	// Spawn builds the child's run. The run lives until ctx ends; nothing
	// is sent to the model before the first Turn.
	Spawn(ctx context.Context, cfg ChildConfig) (Run, error)
}

// SpawnFunc adapts a function to Spawner.
type SpawnFunc func(ctx context.Context, cfg ChildConfig) (Run, error)

// Spawn calls f.
func (f SpawnFunc) Spawn(ctx context.Context, cfg ChildConfig) (Run, error) { return f(ctx, cfg) }

// Run is one child's conversation, kept across its turns.
type Run interface {
	// Turn runs one turn with prompt as the child's input and blocks until
	// it ends. Cancelling ctx interrupts the turn; Turn still returns its
	// receipt. progress is called on every sign of life (it resets the
	// heartbeat watchdog) and carries the child's history whenever it
	// changes.
	Turn(ctx context.Context, prompt string, progress func(Progress)) Receipt
	// Steer sends text into the running turn.
	Steer(text string)
}

// Progress is one sign of life from a running child.
type Progress struct {
	// Messages, when non-nil, changed the child's history: from index Start
	// on it is Messages (an append has Start at the old length). Nil when
	// the history did not change.
	Start    int
	Messages []provider.Message
	// RateLimited says a request of the turn was answered 429 (the client
	// retries it); the session's launches slow down.
	RateLimited bool
}

// Outcome is how a child's turn ended.
type Outcome string

const (
	TurnCompleted   Outcome = "completed"
	TurnInterrupted Outcome = "interrupted"
	TurnFailed      Outcome = "failed"
)

// Receipt is what one child turn produced.
type Receipt struct {
	Outcome         Outcome
	MaxStepsReached bool
	Reply           string // the text of the child's last assistant message
	Error           string
	Steps           int
	Usage           provider.Usage
}
