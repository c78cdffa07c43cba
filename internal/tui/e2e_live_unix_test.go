//go:build unix

package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// A foreground command's output is on screen while it still runs: the
// command waits on a FIFO that the test opens only after it saw the first
// line in the running cell.
func TestE2ELiveOutputShowsBeforeTheCommandEnds(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startTUI(t, fakemodel.New(t), "--approval-policy", "bypass")
	p.line("!echo live-first; read x < " + fifo + "; echo live-second")
	p.waitFor("│ live-first", "Ctrl+B → /jobs")
	if screen := p.capture(); strings.Contains(screen, "live-second") || strings.Contains(screen, "✓ Bash") {
		t.Fatalf("the command had ended before its first line showed:\n%s", screen)
	}
	if err := os.WriteFile(fifo, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.waitFor("✓ Bash echo live-first", "│ live-second")
}
