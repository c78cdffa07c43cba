package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plantedRepo is a git repository workspace whose notes/ directory holds
// the person's file, an outside directory a link can point at, and a
// recorder over the workspace.
func plantedRepo(t *testing.T) (ws, outside string, r *Recorder) {
	t.Helper()
	needGit(t)
	ws, home, outside := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, ws, "notes/todo.txt", "the person's notes\n", 0o644)
	write(t, ws, "README", "readme\n", 0o644)
	sh(t, ws, "git init -q && git add -A && git -c user.name=u -c user.email=u@x commit -qm init")
	write(t, outside, "todo.txt", "outside, not the workspace's\n", 0o600)
	write(t, outside, "added.txt", "outside too\n", 0o600)
	return ws, outside, NewRecorder(mustOpen(t, home, ws))
}

// plant replaces notes/ with a symbolic link to outside.
func plant(t *testing.T, ws, outside string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(ws, "notes")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "notes")); err != nil {
		t.Fatal(err)
	}
}

// A link planted by a later turn (issue 23 §8): /undo of both turns takes
// the link away and gives the person their file back, and nothing is
// written outside.
// README.md "Undo": nothing is written or deleted through a planted link
func TestUndoTakesBackALinkPlantedByALaterTurn(t *testing.T) {
	t.Parallel()
	ws, outside, r := plantedRepo(t)
	r.OnError = func(err error) { t.Errorf("recording: %v", err) }
	before := fingerprint(t, outside)
	r.Begin(ctx, "s", "t1", "edit the notes", 0)
	r.Call(ctx, "t1", "c1", "Bash")
	write(t, ws, "notes/todo.txt", "rewritten by the model\n", 0o644)
	r.Call(ctx, "t1", "c2", "Bash")
	r.Finish("t1")
	r.Begin(ctx, "s", "t2", "tidy up", 2)
	plant(t, ws, outside)
	r.Call(ctx, "t2", "c3", "Bash")
	r.Finish("t2")

	u, err := r.Undo(ctx, "s", 2, false)
	if err != nil || !u.Applied {
		t.Fatalf("undo: %v %+v", err, u)
	}
	assertRecovered(t, ws, outside, before)
}

// A link planted outside any recorded turn, where the restore must write:
// the overwrite the person chose removes the link (not what it points at),
// makes notes/ a directory again, restores the file in it, and says so.
// A file the turn created beyond such a link is not removed through it.
// README.md "Undo": a directory replaced by a link: the link is removed, the directory made again, the file restored
func TestUndoRestoresAPathBeyondAPlantedLinkAsAFile(t *testing.T) {
	t.Parallel()
	ws, outside, r := plantedRepo(t)
	before := fingerprint(t, outside)
	r.Begin(ctx, "s", "t1", "edit the notes", 0)
	write(t, ws, "notes/todo.txt", "rewritten by the model\n", 0o644)
	write(t, ws, "notes/added.txt", "added by the model\n", 0o644)
	r.CallChanged(ctx, "t1", "c1", "File", []string{"notes/todo.txt", "notes/added.txt"})
	r.Finish("t1")
	plant(t, ws, outside)

	p, err := r.PlanUndo(ctx, "s", 1)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if len(p.Plan.Conflicts) != 2 || !strings.Contains(p.Plan.Conflicts[0].Reason, "notes is a symbolic link now (to "+outside+")") {
		t.Fatalf("conflicts %+v, want both paths, gone behind the link", p.Plan.Conflicts)
	}
	u, err := r.Carry(ctx, p, true)
	if err != nil || !u.Applied {
		t.Fatalf("carry: %v %+v", err, u)
	}
	assertRecovered(t, ws, outside, before)
	notes := map[string]string{}
	for _, c := range u.Restored {
		notes[c.Path] = c.Note
	}
	if n := notes["notes/todo.txt"]; !strings.Contains(n, "notes was a symbolic link to "+outside) || !strings.Contains(n, "restored as a file") {
		t.Errorf("the restored file's note = %q", n)
	}
	if n := notes["notes/added.txt"]; !strings.Contains(n, "beyond a symbolic link") {
		t.Errorf("the file beyond the link: note %q", n)
	}
	if _, err := os.Lstat(filepath.Join(ws, "notes", "added.txt")); err == nil {
		t.Error("a file the turn added came back")
	}
}

// A file where the restore needs a directory is the person's: the restore
// refuses before changing anything.
// README.md "Undo": a file standing where the undo needs a folder stops it before anything changes
func TestUndoRefusesToDestroyAFileInTheWay(t *testing.T) {
	t.Parallel()
	ws, _, r := plantedRepo(t)
	r.Begin(ctx, "s", "t1", "edit the notes", 0)
	write(t, ws, "notes/todo.txt", "rewritten by the model\n", 0o644)
	r.CallChanged(ctx, "t1", "c1", "File", []string{"notes/todo.txt"})
	r.Finish("t1")
	os.RemoveAll(filepath.Join(ws, "notes"))
	write(t, ws, "notes", "a file the person made\n", 0o644)
	want := fingerprint(t, ws, ".git")
	p, err := r.PlanUndo(ctx, "s", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Carry(ctx, p, true); err == nil || !strings.Contains(err.Error(), "notes is a file now") {
		t.Fatalf("carry over a file in the way: %v", err)
	}
	if got := fingerprint(t, ws, ".git"); got != want {
		t.Errorf("the workspace changed:\n%s\nwant\n%s", got, want)
	}
}

// assertRecovered checks that notes/ is a directory again holding the
// person's file, and that outside is as it was.
func assertRecovered(t *testing.T, ws, outside, before string) {
	t.Helper()
	if fi, err := os.Lstat(filepath.Join(ws, "notes")); err != nil || !fi.IsDir() {
		t.Fatalf("notes is not a directory again: %v %v", fi, err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "notes", "todo.txt")); err != nil || string(b) != "the person's notes\n" {
		t.Errorf("notes/todo.txt = %q, %v", b, err)
	}
	if got := fingerprint(t, outside); got != before {
		t.Errorf("outside the workspace changed:\n%s\nwas\n%s", got, before)
	}
}
