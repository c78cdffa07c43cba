package checkpoint

import (
	"os"
	"path/filepath"
	"testing"
)

// A plan the user is asked about is checked again when it is carried out:
// a file changed outside codewhale while they decided stops it, even with
// overwrite chosen for the conflicts they saw.
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
