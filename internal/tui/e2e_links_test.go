package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// With hyperlinks enabled, a Markdown link reaches the terminal as an OSC 8
// hyperlink around its label (the pane's raw output shows the sequence) and
// the screen shows the label alone; without, the screen shows "label (url)".
// README.md "Configuration": a Markdown link is drawn as a clickable label; other targets keep their URL in sight
func TestE2EMarkdownLinksAsOSC8(t *testing.T) {
	t.Parallel()
	const answer = "Read [the guide](https://example.com/guide) first."
	for _, c := range []struct {
		name, env, screen string
		osc8              bool
	}{
		{"enabled", "CODEWHALE_HYPERLINKS=1", "● Read the guide first.", true},
		{"plain fallback", "CODEWHALE_HYPERLINKS=0", "● Read the guide (https://example.com/guide) first.", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := launchTUI(t, fakemodel.New(t, fakemodel.Text(answer)), launch{home: t.TempDir(), ws: t.TempDir(), env: []string{c.env}})
			log := filepath.Join(t.TempDir(), "pane.log")
			if out, err := tmux("pipe-pane", "-o", "-t", p.session, "cat >> "+log).CombinedOutput(); err != nil {
				t.Fatalf("pipe-pane: %v %s", err, out)
			}
			p.line("where do I start?")
			p.waitFor(c.screen, "✓ done")
			const seq = "\x1b]8;;https://example.com/guide\x1b\\"
			found := false
			for end := time.Now().Add(3 * time.Second); time.Now().Before(end) && !found; time.Sleep(5 * time.Millisecond) { // polling the pipe's file
				raw, _ := os.ReadFile(log)
				found = strings.Contains(string(raw), seq) && strings.Contains(string(raw), "\x1b]8;;\x1b\\")
				if !c.osc8 && strings.Contains(string(raw), "done") {
					break
				}
			}
			if found != c.osc8 {
				raw, _ := os.ReadFile(log)
				t.Errorf("OSC 8 in the pane output = %v, want %v (%d bytes logged)", found, c.osc8, len(raw))
			}
		})
	}
}
