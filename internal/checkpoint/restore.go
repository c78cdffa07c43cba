package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/codewhale/codewhale/internal/tools/confine"
)

// Conflict is a path that changed outside codewhale since the checkpoint:
// restoring it would overwrite someone's work, so it is left alone unless
// the caller forces it.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Plan is what restoring to tree would do: for every path changed between
// to and from (a turn's before and after), put back to's version; a path
// that now differs from its from version was changed since, by someone
// else, and is a conflict.
type Plan struct {
	Restore   []Change   `json:"restore"` // the change the restore makes
	Conflicts []Conflict `json:"conflicts,omitempty"`
	// Now is the workspace before the restore, so it can be undone: the
	// restore's paths as they are now, the rest as last recorded.
	Now Snap `json:"now"`
}

// PlanRestore compares the workspace with from and to without changing it.
// Taking the "now" snapshot also makes the restore itself undoable; it
// looks again only at the paths the restore would write (they are the
// only ones that can conflict), so its cost follows the turn, not the
// tree.
func (s *Store) PlanRestore(ctx context.Context, to, from string) (Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	turn, err := s.changes(ctx, to, from)
	if err != nil {
		return Plan{}, err
	}
	paths := make([]string, len(turn))
	for i, c := range turn {
		paths[i] = c.Path
	}
	if len(paths) > maxPaths {
		paths = nil
	}
	now, err := s.snapshot(ctx, paths, "")
	if err != nil {
		return Plan{}, err
	}
	since, err := s.changes(ctx, from, now.Tree)
	if err != nil {
		return Plan{}, err
	}
	touched := map[string]string{}
	for _, c := range since {
		touched[c.Path] = c.Kind
	}
	skipped := map[string]bool{}
	for _, sk := range now.Skipped {
		skipped[sk.Path] = true
	}
	p := Plan{Now: now}
	for _, c := range turn {
		undo := Change{Path: c.Path, Kind: inverse(c.Kind)}
		switch {
		case skipped[c.Path]:
			p.Conflicts = append(p.Conflicts, Conflict{Path: c.Path, Reason: "too large to snapshot now, so changes to it cannot be checked"})
		case touched[c.Path] != "":
			p.Conflicts = append(p.Conflicts, Conflict{Path: c.Path, Reason: s.conflictReason(c.Path, touched[c.Path])})
		default:
			p.Restore = append(p.Restore, undo)
		}
	}
	return p, nil
}

func inverse(kind string) string {
	switch kind {
	case "added":
		return "deleted"
	case "deleted":
		return "added"
	}
	return "modified"
}

// conflictReason says how path changed since; a path that went away
// because a parent directory is a symbolic link now says so, since a yes
// removes that link (Apply).
func (s *Store) conflictReason(path, kind string) string {
	reason := "changed outside codewhale since (" + kind + ")"
	if kind != "deleted" {
		return reason
	}
	root, err := confine.OpenRoot(s.ws)
	if err != nil {
		return reason
	}
	defer root.Close()
	if dir, k, err := firstNonDir(root, path); err == nil && k == inWay && isLink(root, dir) {
		target, _ := os.Readlink(filepath.Join(s.ws, dir))
		return fmt.Sprintf("gone since: %s is a symbolic link now (to %s); a yes removes the link, not what it points to", dir, orKind(target, "?"))
	}
	return reason
}
