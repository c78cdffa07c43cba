package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	now, err := s.snapshot(ctx, paths)
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
			p.Conflicts = append(p.Conflicts, Conflict{Path: c.Path, Reason: "changed outside codewhale since (" + touched[c.Path] + ")"})
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

// Apply restores the plan's paths (and, with force, its conflicts too) to
// their version in tree to: files the turn created are removed, files it
// deleted or changed are written back with their mode bits.
func (s *Store) Apply(ctx context.Context, p Plan, to string, force bool) ([]Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	changes := append([]Change(nil), p.Restore...)
	if force {
		for _, c := range p.Conflicts {
			changes = append(changes, Change{Path: c.Path})
		}
	}
	// A temporary index holds tree `to`'s entries for these paths (only
	// them, so the cost follows the restore, not the tree): it says which
	// exist there, and checkout-index writes them back exactly (content,
	// mode bits, symlinks); the side index is refreshed by the next
	// snapshot.
	tmp := s.index + ".restore"
	saved := s.env
	s.env = append(append([]string(nil), saved...), "GIT_INDEX_FILE="+tmp)
	defer func() { s.env = saved; os.Remove(tmp) }()
	inTo, err := s.stage(ctx, to, changes)
	if err != nil {
		return nil, err
	}
	var checkout bytes.Buffer
	var done []Change
	for _, c := range changes {
		full := filepath.Join(s.ws, c.Path)
		if !inside(s.ws, full) {
			return done, fmt.Errorf("checkpoint: refusing to touch %s outside the workspace", full)
		}
		if inTo[c.Path] {
			if c.Kind == "" {
				c.Kind = "modified"
			}
			checkout.WriteString(c.Path)
			checkout.WriteByte(0)
		} else {
			if c.Kind == "" {
				c.Kind = "deleted"
			}
			if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
				return done, fmt.Errorf("checkpoint: removing %s: %w", c.Path, err)
			}
			pruneEmptyDirs(s.ws, filepath.Dir(full))
		}
		done = append(done, c)
	}
	if checkout.Len() > 0 {
		if _, err := s.run(ctx, checkout.Bytes(), noSplit("checkout-index", "--force", "-z", "--stdin")...); err != nil {
			return done, err
		}
	}
	return done, nil
}

// stage puts tree's entries for the changes' paths in the (temporary)
// index and returns which paths tree has.
func (s *Store) stage(ctx context.Context, tree string, changes []Change) (map[string]bool, error) {
	inTo := map[string]bool{}
	if len(changes) == 0 {
		return inTo, nil
	}
	want := map[string]bool{}
	args := []string{"ls-tree", "-r", "-z", tree}
	for _, c := range changes {
		want[c.Path] = true
	}
	if len(changes) <= maxPaths { // else the whole tree is listed and filtered
		args = append(args, "--")
		for _, c := range changes {
			args = append(args, c.Path)
		}
	}
	listed, err := s.run(ctx, nil, args...)
	if err != nil {
		return nil, err
	}
	var entries bytes.Buffer
	for _, rec := range bytes.Split(bytes.TrimRight(listed, "\x00"), []byte{0}) {
		if _, path, ok := bytes.Cut(rec, []byte{'\t'}); ok && want[string(path)] {
			inTo[string(path)] = true
			entries.Write(rec)
			entries.WriteByte(0)
		}
	}
	if entries.Len() > 0 {
		if _, err := s.run(ctx, entries.Bytes(), noSplit("update-index", "-z", "--index-info")...); err != nil {
			return nil, err
		}
	}
	return inTo, nil
}

// noSplit runs a command on the restore's temporary index whole: split,
// it would leave a shared index file of its own behind in the store.
func noSplit(args ...string) []string {
	return append([]string{"-c", "core.splitIndex=false"}, args...)
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
}

// pruneEmptyDirs removes directories a restore emptied, up to the root.
func pruneEmptyDirs(root, dir string) {
	for inside(root, dir) {
		if err := os.Remove(dir); err != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}
