//go:build unix

package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
)

// A foreground command's output shows before it ends: the test holds the
// command on a FIFO until it has seen the first line in a progress event.
// CONTRACT.md §8.6: a foreground Bash command's output arrives in ToolCallProgress before it ends, and no progress
// follows its ToolCallComplete.
func TestToolCallProgressShowsOutputBeforeTheEnd(t *testing.T) {
	t.Parallel()
	h := directHarness(t, posture.FullAccess)
	fifo := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var progress []string
	release := func(ev engine.Event) {
		p, ok := ev.(engine.ToolCallProgress)
		if !ok {
			return
		}
		progress = append(progress, p.Output)
		if p.ID != "host_3" || p.Name != "Bash" {
			t.Errorf("progress %+v for the wrong call", p)
		}
		if len(progress) == 1 && strings.Contains(p.Output, "first-line") {
			go func() { _ = os.WriteFile(fifo, []byte("go\n"), 0o600) }()
		}
	}
	evs, done := h.runDirect("host_3", "echo first-line; read x < "+fifo+"; echo second-line", nil, release)
	if len(progress) == 0 || !strings.Contains(progress[0], "first-line") || strings.Contains(progress[0], "second-line") {
		t.Fatalf("progress = %q, want the first line alone before the end; events %v", progress, describe(evs))
	}
	if !strings.Contains(done.Result.Content, "second-line") {
		t.Errorf("result %q lacks the last line", done.Result.Content)
	}
	if _, last := evs[len(evs)-1].(engine.ToolCallComplete); !last {
		t.Errorf("events after the complete: %v", describe(evs))
	}
}
