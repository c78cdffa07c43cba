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

// Pending is a restore planned and not applied yet: the turns it takes
// back and what it would change, for a host to show and ask about.
type Pending struct {
	Turns   []Turn `json:"turns"` // newest first
	Plan    Plan   `json:"plan"`
	restore bool   // a /restore, logged as a turn of its own
}

// Oldest is the earliest turn the restore takes back.
func (p Pending) Oldest() Turn { return p.Turns[len(p.Turns)-1] }

// Undo takes back the last n turns of the session that are not undone yet,
// newest first. With conflicts (files changed outside codewhale since) and
// no force, nothing is changed and the conflicts are returned so the user
// can decide.
func (r *Recorder) Undo(ctx context.Context, sessionID string, n int, force bool) (Undone, error) {
	p, err := r.PlanUndo(ctx, sessionID, n)
	if err != nil {
		return Undone{}, err
	}
	return r.Carry(ctx, p, force)
}

// PlanUndo plans taking back the last n turns of the session that are not
// undone yet, without changing anything.
func (r *Recorder) PlanUndo(ctx context.Context, sessionID string, n int) (Pending, error) {
	turns, err := r.Turns(sessionID)
	if err != nil {
		return Pending{}, err
	}
	var pick []Turn
	for i := len(turns) - 1; i >= 0 && len(pick) < n; i-- {
		if !turns[i].Undone {
			pick = append(pick, turns[i])
		}
	}
	if len(pick) == 0 {
		return Pending{}, ErrNothingToUndo
	}
	return r.plan(ctx, pick, false)
}

// RestoreBefore takes the workspace back to before turnID: that turn and
// every later one of the session not undone yet.
func (r *Recorder) RestoreBefore(ctx context.Context, sessionID, turnID string, force bool) (Undone, error) {
	p, err := r.PlanRestoreBefore(ctx, sessionID, turnID)
	if err != nil {
		return Undone{}, err
	}
	return r.Carry(ctx, p, force)
}

// PlanRestoreBefore plans RestoreBefore without changing anything.
func (r *Recorder) PlanRestoreBefore(ctx context.Context, sessionID, turnID string) (Pending, error) {
	turns, err := r.Turns(sessionID)
	if err != nil {
		return Pending{}, err
	}
	var pick []Turn
	for i := len(turns) - 1; i >= 0; i-- {
		if !turns[i].Undone {
			pick = append(pick, turns[i])
		}
		if turns[i].TurnID == turnID {
			if turns[i].Undone {
				return Pending{}, fmt.Errorf("turn %q is already undone", clip(turns[i].Prompt, 60))
			}
			return r.plan(ctx, pick, true)
		}
	}
	return Pending{}, fmt.Errorf("no recorded turn %s in this session", turnID)
}

// plan compares the workspace with the picked turns: the oldest one's
// before-state is restored for every path they changed; conflicts are
// paths that now differ from the newest one's after-state.
func (r *Recorder) plan(ctx context.Context, pick []Turn, asRestore bool) (Pending, error) {
	plan, err := r.Store.PlanRestore(ctx, pick[len(pick)-1].Before, pick[0].After)
	if err != nil {
		return Pending{}, err
	}
	return Pending{Turns: pick, Plan: plan, restore: asRestore}, nil
}

// Carry applies a pending restore. The workspace is compared again first,
// so what changed while the user decided counts: with conflicts and no
// overwrite, or with a conflict the pending plan did not show, nothing is
// changed and the conflicts are returned.
//
// A restore is logged as a turn of its own, so the next /undo takes the
// restore back; an /undo is not, so /undo again goes one turn further back.
func (r *Recorder) Carry(ctx context.Context, p Pending, overwrite bool) (Undone, error) {
	oldest, newest := p.Oldest(), p.Turns[0]
	plan, err := r.Store.PlanRestore(ctx, oldest.Before, newest.After)
	if err != nil {
		return Undone{}, err
	}
	out := Undone{Turns: p.Turns, Conflicts: plan.Conflicts, Prior: plan.Now.Tree}
	if len(plan.Conflicts) > 0 && (!overwrite || !shown(plan.Conflicts, p.Plan.Conflicts)) {
		return out, nil
	}
	if out.Restored, err = r.Store.Apply(ctx, plan, oldest.Before, overwrite); err != nil {
		return out, err
	}
	out.Applied = true
	var ids []string
	for _, t := range p.Turns {
		if err := r.append(record{Type: "undo", TurnID: t.TurnID, Prior: plan.Now.Tree, At: time.Now().UTC()}); err != nil {
			return out, err
		}
		ids = append(ids, t.TurnID)
	}
	if !p.restore {
		return out, nil
	}
	// The restore itself is a turn, so it can be taken back. Its before
	// (plan.Now) looked again only at the restored paths, so its after does
	// the same: the two differ in exactly what the restore wrote.
	paths := make([]string, len(out.Restored))
	for i, c := range out.Restored {
		paths[i] = c.Path
	}
	after, err := r.Store.SnapshotPaths(ctx, paths)
	if err != nil {
		return out, err
	}
	restore := &Turn{SessionID: newest.SessionID, TurnID: fmt.Sprintf("restore-%d", time.Now().UnixNano()),
		Prompt: fmt.Sprintf("restore to before %q", clip(oldest.Prompt, 60)), MessageIndex: oldest.MessageIndex,
		At: time.Now().UTC(), Before: plan.Now.Tree, After: after.Tree, Restores: ids,
		Calls: []CallChanges{{CallID: "restore", Tool: "restore", Changes: out.Restored}}}
	return out, r.append(record{Type: "turn", Turn: restore})
}

// shown reports whether every conflict in now was among those shown.
func shown(now, shown []Conflict) bool {
	seen := map[string]bool{}
	for _, c := range shown {
		seen[c.Path] = true
	}
	for _, c := range now {
		if !seen[c.Path] {
			return false
		}
	}
	return true
}
