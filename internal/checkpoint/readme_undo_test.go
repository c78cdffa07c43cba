package checkpoint

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// README.md "Undo": the side git store lives under $CODEWHALE_HOME/checkpoints/, outside the workspace, and by
// default skips files over 10 MB.
func TestREADMEUndoStoreIsUnderTheHomesCheckpoints(t *testing.T) {
	t.Parallel()
	needGit(t)
	ws, home := t.TempDir(), t.TempDir()
	s, err := Open(home, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if dir := s.Dir(); !strings.HasPrefix(dir, filepath.Join(home, "checkpoints")+string(filepath.Separator)) {
		t.Errorf("store at %s, want it under %s", dir, filepath.Join(home, "checkpoints"))
	}
	if s.maxFile != 10<<20 {
		t.Errorf("default size limit %d bytes, want 10 MB", s.maxFile)
	}
}

// README.md "Undo": checkpoints need the git binary; without one on PATH, Open says so. Not parallel: it sets PATH.
func TestREADMEUndoNeedsTheGitBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := Open(t.TempDir(), t.TempDir(), Options{}); !errors.Is(err, ErrNoGit) {
		t.Fatalf("Open without git: %v, want ErrNoGit", err)
	}
}
