package app

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/codewhale/codewhale/internal/checkpoint"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/file"
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

// checkpointer adapts the recorder to the engine's Checkpointer; what a
// command changed goes on to the language servers (afterCommand).
type checkpointer struct {
	r            *checkpoint.Recorder
	afterCommand func([]checkpoint.Change)
}

func (c checkpointer) Start(ctx context.Context, t engine.TurnInfo) { c.r.Start(ctx, t.TurnID) }

// Before records the state ahead of the turn's first change: on top of
// the base Start took, only the files a File call names (the ones it is
// about to write), or the whole workspace for any other call or a path
// that may reach another file than it names.
func (c checkpointer) Before(ctx context.Context, t engine.TurnInfo, call engine.CallInfo) {
	if paths, ok := plainPaths(call.Writes, c.r.Store.Workspace()); ok {
		c.r.BeginPaths(ctx, t.SessionID, t.TurnID, t.Prompt, t.MessageIndex, paths)
		return
	}
	c.r.Begin(ctx, t.SessionID, t.TurnID, t.Prompt, t.MessageIndex)
}

func (c checkpointer) After(ctx context.Context, t engine.TurnInfo, call engine.CallInfo) {
	if paths, ok := mutationPaths(call.Metadata, c.r.Store.Workspace()); ok {
		c.r.CallChanged(ctx, t.TurnID, call.ID, call.Tool, paths)
		return
	}
	changes := c.r.Call(ctx, t.TurnID, call.ID, call.Tool)
	if c.afterCommand != nil {
		c.afterCommand(changes)
	}
}

// mutationPaths are the workspace-relative files a File call's
// file.mutation says it changed; ok is false when the result does not say
// (any other tool, a failed call) or a path may have reached another file
// than it names (outside the workspace, through a symlink), and then the
// whole workspace is looked at.
func mutationPaths(meta map[string]any, ws string) (paths []string, ok bool) {
	m, isMutation := meta["mutation"].(file.Mutation)
	if meta["event"] != file.MutationEvent || !isMutation {
		return nil, false
	}
	var raws []string
	for _, f := range m.Files {
		raws = append(raws, f.Path)
	}
	for _, r := range m.Renames {
		raws = append(raws, r.From, r.To)
	}
	if raws == nil {
		return nil, true // it changed nothing
	}
	return plainPaths(raws, ws)
}

// plainPaths are raws relative to ws, each as plainPath makes it; ok is
// false for none or when any one is not plain.
func plainPaths(raws []string, ws string) (paths []string, ok bool) {
	for _, raw := range raws {
		rel, ok := plainPath(raw, ws)
		if !ok {
			return nil, false
		}
		paths = append(paths, rel)
	}
	return paths, len(paths) > 0
}

// plainPath is raw (as the File call gave it, resolved as the File tool
// resolves it) relative to ws, when it lies inside ws and names itself:
// no symlink on the way and none at the end.
func plainPath(raw, ws string) (string, bool) {
	lexical, _, err := (&tools.Context{Workspace: ws}).LexicalPath(raw)
	if err != nil || lexical == ws || tools.CanonicalPath(raw, ws) != lexical {
		return "", false
	}
	if fi, err := os.Lstat(lexical); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return "", false
	}
	rel, err := filepath.Rel(ws, lexical)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func (c checkpointer) End(_ context.Context, t engine.TurnInfo) { c.r.Finish(t.TurnID) }

// engineCheckpoints is the engine's Checkpointer, or nil.
func (a *App) engineCheckpoints() engine.Checkpointer {
	if a.Checkpoints == nil {
		return nil
	}
	return checkpointer{r: a.Checkpoints, afterCommand: a.lspAfterCommand}
}

type cpState struct {
	cpMu  sync.Mutex
	cpErr error
}
