package tui_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// A turn's Bash changes (an edit, a new file, a deleted file) are taken back
// by /undo, and /diff shows what the session changed, under tmux.
func TestE2EUndoAndDiff(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		bashCall("c1", "printf 'changed\\n' > notes.md && printf 'new\\n' > added.txt && rm old.txt"),
		fakemodel.Text("Edited."))
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "notes.md"), []byte("original\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "old.txt"), []byte("keep me\n"), 0o644)
	p := startTUIAt(t, srv, t.TempDir(), ws)
	p.line("edit the notes")
	p.waitFor(approvalReady)
	p.keys("y")
	p.waitFor("● Edited.")
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.md")); string(b) != "changed\n" {
		t.Fatalf("the turn did not run: %q", b)
	}
	p.line("/diff")
	p.waitFor("Changes this session made", "-original", "+changed", "+new")
	p.keys("q")
	p.line("/undo")
	p.waitFor("Undid the file changes of the last turn", "3 file(s)")
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.md")); string(b) != "original\n" {
		t.Errorf("notes.md = %q after /undo", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "old.txt")); string(b) != "keep me\n" {
		t.Errorf("old.txt = %q after /undo", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "added.txt")); !os.IsNotExist(err) {
		t.Error("added.txt survived /undo")
	}
	p.line("/undo")
	p.waitFor("Nothing to undo")
}
