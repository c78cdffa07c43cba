package tui_test

import (
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// Alt+C under a default tmux (set-clipboard external, no passthrough)
// reaches tmux: the reply is in a tmux buffer and the toast says where it
// went (issue 14: the passthrough-wrapped OSC 52 was dropped while the
// toast said "Copied").
// README.md "TUI keys": Alt+C copies the last reply into a tmux buffer inside tmux
func TestE2ECopyUnderDefaultTmuxLandsInATmuxBuffer(t *testing.T) {
	t.Parallel()
	p := launchTUI(t, fakemodel.New(t, fakemodel.Text("copy me: 7f3a-unique")),
		launch{home: t.TempDir(), ws: t.TempDir(), keepTMUX: true})
	p.line("say it")
	p.waitFor("● copy me: 7f3a-unique", "✓ done")
	p.keys("M-c")
	p.waitFor("Copied the last reply to the tmux buffer")
	// The tmux server is shared with tests that paste through its
	// buffers, so the reply may not be the newest buffer: any will do.
	names, err := tmux("list-buffers", "-F", "#{buffer_name}").Output()
	for _, name := range strings.Fields(string(names)) {
		if out, _ := tmux("show-buffer", "-b", name).Output(); strings.Contains(string(out), "copy me: 7f3a-unique") {
			return
		}
	}
	list, _ := tmux("list-buffers").Output()
	t.Errorf("no tmux buffer holds the reply (%v); buffers:\n%s", err, list)
}
