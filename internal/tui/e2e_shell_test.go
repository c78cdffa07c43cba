package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// !command in the real binary: the output shows as a Bash cell, is offered
// for the next message and goes with it; nothing reaches the model before.
// README.md "TUI keys": !command runs without the model; its output goes with the next message
func TestE2EShellCommandOutputIsOfferedForTheNextMessage(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("I see the listing."))
	p := startTUI(t, srv)
	if err := os.WriteFile(filepath.Join(p.ws, "listed-file.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.line("!ls")
	p.waitFor("✓ Bash ls", "│ listed-file.txt", "Next message includes the output of !ls", "Alt+X leaves it out")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the command reached the model: %d requests", n)
	}
	p.line("what is here?")
	p.waitFor("● I see the listing.")
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].LastUserText(), "I ran `ls` in the workspace:\n\n```\nlisted-file.txt\n```\n\nwhat is here?") {
		t.Fatalf("the message did not carry the output: %q", reqs[len(reqs)-1].LastUserText())
	}
}

// A mutating command under Ask (the default) opens the same approval card
// as the model's call, and runs only on yes.
// README.md "TUI keys": a mutating !command opens the approval card under Ask
func TestE2EShellCommandAsksUnderAsk(t *testing.T) {
	t.Parallel()
	p := startTUI(t, fakemodel.New(t))
	p.line("!touch by-hand.txt")
	p.waitFor("Command: touch by-hand.txt", "▸ Deny this call")
	p.focusCard("Command: touch by-hand.txt", approvalReady)
	if _, err := os.Stat(filepath.Join(p.ws, "by-hand.txt")); err == nil {
		t.Fatal("the command ran before the card was answered")
	}
	p.keys("y")
	p.waitFor("✓ Bash touch by-hand.txt", "Next message includes the output of !touch by-hand.txt")
	if _, err := os.Stat(filepath.Join(p.ws, "by-hand.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
}

// The card of the person's own command shows no intent (the model's last
// reply is not why they typed it) and offers no "Abort the turn": no turn
// runs. Esc denies it (CONTRACT.md §14.6).
func TestE2EShellCommandCardHasNoIntentAndNoAbort(t *testing.T) {
	t.Parallel()
	p := startTUI(t, fakemodel.New(t, fakemodel.Text("I would refactor everything.")))
	p.line("hello")
	p.waitFor("● I would refactor everything.", "✓ done")
	p.line("!touch by-hand.txt")
	p.focusCard("Command: touch by-hand.txt", "n deny · s always · Esc deny")
	screen := p.capture()
	for _, bad := range []string{"Intent:", "Abort the turn", "Esc abort"} {
		if strings.Contains(screen, bad) {
			t.Errorf("the card of a typed command shows %q:\n%s", bad, screen)
		}
	}
	p.keys("Escape")
	p.waitFor("✕ Bash touch by-hand.txt", "denied")
	if _, err := os.Stat(filepath.Join(p.ws, "by-hand.txt")); err == nil {
		t.Fatal("the denied command ran")
	}
}
