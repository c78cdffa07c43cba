package tui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/checkpoint"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// README.md "Undo": /undo 2 takes back the last two turns' files, and /undo again goes one turn further back.
func TestREADMEUndoNTurnsThenOneFurther(t *testing.T) {
	t.Parallel()
	f := newUndoFixture(t)
	f.turn("t1", "first", map[string]string{"a.txt": "one\n"})
	f.turn("t2", "second", map[string]string{"b.txt": "two\n"})
	f.turn("t3", "third", map[string]string{"c.txt": "three\n"})
	f.run(f.submit("/undo 2"))
	f.mustShow("Undo the last 2 turns")
	f.run(f.key("2")) // undo the files, keep the conversation
	for _, gone := range []string{"b.txt", "c.txt"} {
		if _, err := os.Stat(filepath.Join(f.ws, gone)); !os.IsNotExist(err) {
			t.Fatalf("%s should be gone after /undo 2: %v", gone, err)
		}
	}
	if f.read("a.txt") != "one\n" {
		t.Fatal("/undo 2 took back more than two turns")
	}
	f.run(f.submit("/undo"))
	f.mustShow("Undo the last turn")
	f.run(f.key("2"))
	if _, err := os.Stat(filepath.Join(f.ws, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("/undo again should take back the first turn: %v", err)
	}
}

// README.md "Undo": with a file changed outside codewhale, /undo --force makes overwriting the default answer.
func TestREADMEUndoForceMakesOverwritingTheDefault(t *testing.T) {
	t.Parallel()
	f := newUndoFixture(t)
	f.turn("t1", "edit it", map[string]string{"a.txt": "agent\n"})
	if err := os.WriteFile(filepath.Join(f.ws, "a.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.run(f.submit("/undo --force"))
	f.mustShow("a.txt — changed outside codewhale")
	if q := f.m.stack.Top().(*views.Question); q.Selected() == "" {
		t.Fatal("under --force the default answer is still Cancel")
	}
	f.run(f.key("enter"))
	if _, err := os.Stat(filepath.Join(f.ws, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("Enter under --force should overwrite and take the turn back: %v", err)
	}
}

// README.md "Undo": checkpoints need the git binary; without it /undo (and /diff) say so.
func TestREADMEUndoWithoutGitSaysSo(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 120, 30, func(o *Options) { o.Checkpoints, o.CheckpointsOff = nil, checkpoint.ErrNoGit.Error() })
	d.submit("/undo")
	d.mustShow("Undo is not available: checkpoints need the git binary")
	d.submit("/diff")
	d.mustShow("/diff is not available: checkpoints need the git binary")
}
