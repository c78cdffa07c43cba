package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNothingToUndo means the session has no turn left to take back.
var ErrNothingToUndo = errors.New("no turn of this session changed files that are not already undone")

// Undone is the result of taking turns back.
type Undone struct {
	Turns     []Turn     `json:"turns"`     // newest first
	Restored  []Change   `json:"restored"`  // what the restore changed
	Conflicts []Conflict `json:"conflicts"` // left alone (or overwritten with force)
	Prior     string     `json:"prior"`     // the workspace before the restore (itself restorable)
	Applied   bool       `json:"applied"`
}

// Undo takes back the last n turns of the session that are not undone yet,
// newest first. With conflicts (files changed outside codewhale since) and
// no force, nothing is changed and the conflicts are returned so the user
// can decide.
func (r *Recorder) Undo(ctx context.Context, sessionID string, n int, force bool) (Undone, error) {
	turns, err := r.Turns(sessionID)
	if err != nil {
		return Undone{}, err
	}
	var pick []Turn
	for i := len(turns) - 1; i >= 0 && len(pick) < n; i-- {
		if !turns[i].Undone {
			pick = append(pick, turns[i])
		}
	}
	if len(pick) == 0 {
		return Undone{}, ErrNothingToUndo
	}
	return r.restoreTo(ctx, pick, force, false)
}

// RestoreBefore takes the workspace back to before turnID: that turn and
// every later one of the session not undone yet.
func (r *Recorder) RestoreBefore(ctx context.Context, sessionID, turnID string, force bool) (Undone, error) {
	turns, err := r.Turns(sessionID)
	if err != nil {
		return Undone{}, err
	}
	var pick []Turn
	found := false
	for i := len(turns) - 1; i >= 0; i-- {
		if !turns[i].Undone {
			pick = append(pick, turns[i])
		}
		if turns[i].TurnID == turnID {
			found = true
			break
		}
	}
	if !found {
		return Undone{}, fmt.Errorf("no recorded turn %s in this session", turnID)
	}
	return r.restoreTo(ctx, pick, force, true)
}

// restoreTo restores the oldest picked turn's before-state for every path
// the picked turns changed; conflicts are paths that now differ from the
// newest turn's after-state.
//
// A restore (asRestore) is logged as a turn of its own, so the next /undo
// takes the restore back; an /undo is not, so /undo again goes one turn
// further back.
func (r *Recorder) restoreTo(ctx context.Context, pick []Turn, force, asRestore bool) (Undone, error) {
	oldest, newest := pick[len(pick)-1], pick[0]
	plan, err := r.Store.PlanRestore(ctx, oldest.Before, newest.After)
	if err != nil {
		return Undone{}, err
	}
	out := Undone{Turns: pick, Conflicts: plan.Conflicts, Prior: plan.Now.Tree}
	if len(plan.Conflicts) > 0 && !force {
		return out, nil
	}
	if out.Restored, err = r.Store.Apply(ctx, plan, oldest.Before, force); err != nil {
		return out, err
	}
	out.Applied = true
	var ids []string
	for _, t := range pick {
		if err := r.append(record{Type: "undo", TurnID: t.TurnID, Prior: plan.Now.Tree, At: time.Now().UTC()}); err != nil {
			return out, err
		}
		ids = append(ids, t.TurnID)
	}
	if !asRestore {
		return out, nil
	}
	// The restore itself is a turn, so it can be taken back.
	after, err := r.Store.Snapshot(ctx)
	if err != nil {
		return out, err
	}
	restore := &Turn{SessionID: newest.SessionID, TurnID: fmt.Sprintf("restore-%d", time.Now().UnixNano()),
		Prompt: fmt.Sprintf("restore to before %q", clip(oldest.Prompt, 60)), MessageIndex: oldest.MessageIndex,
		At: time.Now().UTC(), Before: plan.Now.Tree, After: after.Tree, Restores: ids,
		Calls: []CallChanges{{CallID: "restore", Tool: "restore", Changes: out.Restored}}}
	return out, r.append(record{Type: "turn", Turn: restore})
}
