package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
	"github.com/codewhale/codewhale/internal/testutil/plantedbin"
)

// A git the workspace put on PATH (.venv/bin, which a File patch can fill)
// never takes a checkpoint: every turn snapshots without asking. Not
// parallel: it sets PATH.
func TestPlantedGitDoesNotTakeCheckpoints(t *testing.T) {
	gitfixture.Git(t)
	ws, home := t.TempDir(), t.TempDir()
	ran := plantedbin.Plant(t, ws, "git")
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(home, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Snapshot(context.Background()); err != nil {
		t.Fatalf("snapshot with the real git: %v", err)
	}
	if got := ran(); len(got) > 0 {
		t.Fatalf("the planted %v ran", got)
	}
}
