package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
)

// The workspace's .git/info/exclude joins the side store's excludes; one
// that links out of the workspace is left out, so no other file's lines
// are copied into the side store.
func TestWorkspaceExcludesAreReadThroughTheBoundary(t *testing.T) {
	t.Parallel()
	gitfixture.Git(t)
	for _, linked := range []bool{false, true} {
		ws, home, outside := t.TempDir(), t.TempDir(), t.TempDir()
		info := filepath.Join(ws, ".git", "info")
		if err := os.MkdirAll(info, 0o755); err != nil {
			t.Fatal(err)
		}
		text := []byte("inside-exclude\n")
		if linked {
			text = []byte("CANARY-outside-line\n")
			if err := os.WriteFile(filepath.Join(outside, "credentials"), text, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "credentials"), filepath.Join(info, "exclude")); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(filepath.Join(info, "exclude"), text, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(home, ws, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Snapshot(context.Background()); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(s.gitDir, "info", "exclude"))
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(string(got), strings.TrimSpace(string(text))); has == linked {
			t.Errorf("linked=%v: the side store's excludes are %q", linked, got)
		}
	}
}
