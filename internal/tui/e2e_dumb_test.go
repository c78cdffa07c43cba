package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Under TERM=dumb the UI sends no alternate screen, mouse, focus or
// bracketed-paste mode, and says that `codewhale exec` runs without a
// screen to draw on.
// README.md "Configuration": under TERM=dumb no colour, alternate-screen, mouse, focus or bracketed-paste mode
func TestE2ETermDumbSendsNoTerminalModes(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "raw.log")
	p := launchTUI(t, nil, launch{home: t.TempDir(), ws: t.TempDir(), env: []string{"TERM=dumb"}, rawLog: log})
	p.waitFor("TERM=dumb", "codewhale exec")
	raw, err := os.ReadFile(log)
	if err != nil || len(raw) == 0 {
		t.Fatalf("no raw output logged: %v", err)
	}
	for name, seq := range map[string]string{
		"alternate screen": "\x1b[?1049h", "mouse": "\x1b[?1000h", "mouse motion": "\x1b[?1002h",
		"SGR mouse": "\x1b[?1006h", "focus reporting": "\x1b[?1004h", "bracketed paste": "\x1b[?2004h",
	} {
		if strings.Contains(string(raw), seq) {
			t.Errorf("TERM=dumb got the %s mode (%q)", name, seq)
		}
	}
}
