package checkpoint

import (
	"os"
	"path/filepath"
	"testing"
)

// A plan the user is asked about is checked again when it is carried out:
// a file changed outside codewhale while they decided stops it, even with
// overwrite chosen for the conflicts they saw.
// README.md "Undo": the workspace is checked again on the answer; a change made while you decided stops it
func TestCarryStopsOnAConflictTheUserDidNotSee(t *testing.T) {
	t.Parallel()
	needGit(t)
	ws, home := t.TempDir(), t.TempDir()
	write(t, ws, "a.txt", "a0\n", 0o644)
	write(t, ws, "b.txt", "b0\n", 0o644)
	r := NewRecorder(mustOpen(t, home, ws))
	r.Begin(ctx, "sess", "t1", "edit both", 0)
	write(t, ws, "a.txt", "a1\n", 0o644)
	write(t, ws, "b.txt", "b1\n", 0o644)
	r.Call(ctx, "t1", "c1", "Bash")
	r.Finish("t1")
	write(t, ws, "a.txt", "a by the user\n", 0o644)
	p, err := r.PlanUndo(ctx, "sess", 1)
	if err != nil || len(p.Plan.Conflicts) != 1 || p.Plan.Conflicts[0].Path != "a.txt" {
		t.Fatalf("plan: %v %+v", err, p.Plan)
	}
	write(t, ws, "b.txt", "b by the user, meanwhile\n", 0o644)
	u, err := r.Carry(ctx, p, true)
	if err != nil || u.Applied || len(u.Conflicts) != 2 {
		t.Fatalf("carry: %v %+v", err, u)
	}
	for name, want := range map[string]string{"a.txt": "a by the user\n", "b.txt": "b by the user, meanwhile\n"} {
		if b, _ := os.ReadFile(filepath.Join(ws, name)); string(b) != want {
			t.Errorf("%s = %q", name, b)
		}
	}
	// Planned again, with both shown, overwrite applies.
	p, _ = r.PlanUndo(ctx, "sess", 1)
	if u, err := r.Carry(ctx, p, true); err != nil || !u.Applied {
		t.Fatalf("second carry: %v %+v", err, u)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "b.txt")); string(b) != "b0\n" {
		t.Errorf("b.txt = %q", b)
	}
	if _, err := r.PlanRestoreBefore(ctx, "sess", "t1"); err == nil {
		t.Error("restoring to before an undone turn was planned")
	}
}

func mustOpen(t *testing.T, home, ws string) *Store {
	t.Helper()
	s, err := Open(home, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A limited snapshot looks only at the paths it is given, literally: a
// name with glob characters matches only itself, and a file changed
// elsewhere keeps its last recorded state.
func TestSnapshotPathsLooksOnlyAtItsPaths(t *testing.T) {
	t.Parallel()
	needGit(t)
	ws, home := t.TempDir(), t.TempDir()
	write(t, ws, "a.txt", "a0\n", 0o644)
	write(t, ws, "b.txt", "b0\n", 0o644)
	s := mustOpen(t, home, ws)
	base, _ := s.Snapshot(ctx)
	write(t, ws, "[ab].txt", "glob\n", 0o644)
	write(t, ws, "a.txt", "a1\n", 0o644)
	write(t, ws, "b.txt", "b1\n", 0o644)
	snap, err := s.SnapshotPaths(ctx, []string{"[ab].txt", "gone/never.txt"})
	if err != nil {
		t.Fatal(err)
	}
	changes, _ := s.Changes(ctx, base.Tree, snap.Tree)
	if len(changes) != 1 || changes[0].Path != "[ab].txt" || changes[0].Kind != "added" {
		t.Fatalf("changes %+v", changes)
	}
	full, _ := s.Snapshot(ctx)
	if changes, _ := s.Changes(ctx, snap.Tree, full.Tree); len(changes) != 2 {
		t.Fatalf("the full snapshot after it: %+v", changes)
	}
}

// Restoring looks again only at the paths it writes, and taking the
// restore back writes only those: a file changed outside codewhale in
// between is left as it is.
func TestUndoingARestoreLeavesOtherFilesAlone(t *testing.T) {
	t.Parallel()
	needGit(t)
	ws, home := t.TempDir(), t.TempDir()
	write(t, ws, "a.txt", "a0\n", 0o644)
	write(t, ws, "other.txt", "o0\n", 0o644)
	r := NewRecorder(mustOpen(t, home, ws))
	r.Begin(ctx, "sess", "t1", "edit a", 0)
	write(t, ws, "a.txt", "a1\n", 0o644)
	r.CallChanged(ctx, "t1", "c1", "File", []string{"a.txt"})
	r.Finish("t1")
	write(t, ws, "other.txt", "o1 by the user\n", 0o644)
	if u, err := r.RestoreBefore(ctx, "sess", "t1", false); err != nil || !u.Applied || len(u.Restored) != 1 {
		t.Fatalf("restore: %v %+v", err, u)
	}
	write(t, ws, "other.txt", "o2 by the user\n", 0o644)
	if u, err := r.Undo(ctx, "sess", 1, false); err != nil || !u.Applied || len(u.Restored) != 1 || u.Restored[0].Path != "a.txt" {
		t.Fatalf("undo of the restore: %v %+v", err, u)
	}
	for name, want := range map[string]string{"a.txt": "a1\n", "other.txt": "o2 by the user\n"} {
		if b, _ := os.ReadFile(filepath.Join(ws, name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
}
