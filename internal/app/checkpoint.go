package app

import (
	"context"
	"sync"

	"github.com/codewhale/codewhale/internal/checkpoint"
	"github.com/codewhale/codewhale/internal/engine"
)

// openCheckpoints starts recording the workspace around every turn's
// changes; without git it says so in CheckpointsOff and records nothing.
func (a *App) openCheckpoints() {
	store, err := checkpoint.Open(a.Cfg.Home, a.Cfg.Workspace, checkpoint.Options{})
	if err != nil {
		a.CheckpointsOff = err.Error()
		return
	}
	a.Checkpoints = checkpoint.NewRecorder(store)
	a.Checkpoints.OnError = a.checkpointError
}

func (a *App) checkpointError(err error) {
	a.cpMu.Lock()
	a.cpErr = err
	a.cpMu.Unlock()
}

// CheckpointError is the last recording failure, or nil.
func (a *App) CheckpointError() error {
	a.cpMu.Lock()
	defer a.cpMu.Unlock()
	return a.cpErr
}

// checkpointer adapts the recorder to the engine's Checkpointer.
type checkpointer struct{ r *checkpoint.Recorder }

func (c checkpointer) Before(ctx context.Context, t engine.TurnInfo) {
	c.r.Begin(ctx, t.SessionID, t.TurnID, t.Prompt, t.MessageIndex)
}

func (c checkpointer) After(ctx context.Context, t engine.TurnInfo, call engine.CallInfo) {
	c.r.Call(ctx, t.TurnID, call.ID, call.Tool)
}

func (c checkpointer) End(_ context.Context, t engine.TurnInfo) { c.r.Finish(t.TurnID) }

// engineCheckpoints is the engine's Checkpointer, or nil.
func (a *App) engineCheckpoints() engine.Checkpointer {
	if a.Checkpoints == nil {
		return nil
	}
	return checkpointer{a.Checkpoints}
}

type cpState struct {
	cpMu  sync.Mutex
	cpErr error
}
