package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// With [notifications] when = "always", a finished turn sends the
// configured sequence to the terminal: it shows in the pane's raw output.
func TestE2ENotificationsReachTheTerminal(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ method, want string }{
		{"osc9", "\x1b]9;codewhale: the turn is done\a"},
		{"bel", "\a"},
	} {
		t.Run(c.method, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			cfg := "[notifications]\nwhen = \"always\"\nmethod = \"" + c.method + "\"\n"
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			p := launchTUI(t, fakemodel.New(t, fakemodel.Text("finished")), launch{home: home, ws: t.TempDir()})
			log := filepath.Join(t.TempDir(), "pane.log")
			if out, err := tmux("pipe-pane", "-o", "-t", p.session, "cat >> "+log).CombinedOutput(); err != nil {
				t.Fatalf("pipe-pane: %v %s", err, out)
			}
			before, _ := os.ReadFile(log)
			p.line("work")
			p.waitFor("● finished", "✓ done")
			var raw []byte
			for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) { // polling the pipe's file
				if raw, _ = os.ReadFile(log); strings.Count(string(raw), c.want) > strings.Count(string(before), c.want) {
					return
				}
			}
			t.Errorf("the pane output after the turn has no new %q", c.want)
		})
	}
}

// Inside tmux an OSC notification goes through tmux's passthrough and a BEL
// follows it, so tmux raises the window's bell flag (it drops a raw OSC 9).
// README.md "Web and GitHub": inside tmux an OSC notification goes through the passthrough and a BEL follows it.
func TestE2ENotificationsInsideTmuxRingTheBell(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cfg := "[notifications]\nwhen = \"always\"\nmethod = \"osc9\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	p := launchTUI(t, fakemodel.New(t, fakemodel.Text("finished")), launch{home: home, ws: t.TempDir(), keepTMUX: true})
	log := filepath.Join(t.TempDir(), "pane.log")
	if out, err := tmux("pipe-pane", "-o", "-t", p.session, "cat >> "+log).CombinedOutput(); err != nil {
		t.Fatalf("pipe-pane: %v %s", err, out)
	}
	p.line("work")
	p.waitFor("● finished", "✓ done")
	want := "\x1bPtmux;\x1b\x1b]9;codewhale: the turn is done\a\x1b\\\a"
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) { // polling tmux
		raw, _ := os.ReadFile(log)
		flag, _ := tmux("display", "-p", "-t", p.session, "#{window_bell_flag}").Output()
		if strings.Contains(string(raw), want) && strings.TrimSpace(string(flag)) == "1" {
			return
		}
	}
	raw, _ := os.ReadFile(log)
	flag, _ := tmux("display", "-p", "-t", p.session, "#{window_bell_flag}").Output()
	t.Errorf("window_bell_flag = %q; the pane output has the wrapped OSC 9: %v", strings.TrimSpace(string(flag)), strings.Contains(string(raw), want))
}
