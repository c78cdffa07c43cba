package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// !command runs through the engine with no model request, shows its output,
// and the next message carries it; Alt+X leaves it out.
// README.md "TUI keys": Alt+X leaves a !command's output out of the next message
func TestFlowShellCommandOutputGoesWithTheNextMessage(t *testing.T) {
	srv := fakemodel.New(t, fakemodel.Text("seen it"), fakemodel.Text("plain"))
	f := newFlow(t, srv)
	f.typeLine("!echo shell-out-42")
	f.waitFor("shell-out-42", "Next message includes the output of !echo shell-out-42")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a local command sent %d model requests", n)
	}
	f.typeLine("what did it print?")
	f.waitFor("seen it")
	f.typeLine("!echo dropped-99")
	f.waitFor("Next message includes the output of !echo dropped-99")
	f.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x"), Alt: true})
	f.waitFor("Left out the output of 1 command")
	f.typeLine("second")
	f.waitFor("plain")
	m := f.final()
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first := reqs[0].LastUserText()
	if !strings.Contains(first, "I ran `echo shell-out-42` in the workspace:\n\n```\nshell-out-42\n```\n\nwhat did it print?") {
		t.Errorf("first message = %q, want the output then the text", first)
	}
	if second := reqs[1].LastUserText(); strings.Contains(second, "dropped-99") {
		t.Errorf("Alt+X left the output in: %q", second)
	}
	if m.outputs.Len() != 0 {
		t.Errorf("attachments left: %q", m.outputs.Take())
	}
}

// A mutating command under Ask opens the approval card and runs only on
// yes; Plan mode refuses before anything runs.
func TestFlowShellCommandNeedsApprovalUnderAsk(t *testing.T) {
	srv := fakemodel.New(t)
	f := newFlow(t, srv)
	f.typeLine("!touch made-by-shell.txt")
	f.waitFor("awaiting approval")
	if _, err := os.Stat(filepath.Join(f.ws, "made-by-shell.txt")); err == nil {
		t.Fatal("the command ran before the card was answered")
	}
	f.tm.Send(tea.KeyMsg{Type: tea.KeyTab}) // the card opened without focus: Enter was just pressed
	f.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	f.waitFor("Next message includes the output of !touch made-by-shell.txt")
	if _, err := os.Stat(filepath.Join(f.ws, "made-by-shell.txt")); err != nil {
		t.Fatalf("approved command did not run: %v", err)
	}
	f.final()
}

// README.md "TUI keys": Plan mode, which has no shell, refuses a !command
func TestFlowShellCommandRefusedInPlan(t *testing.T) {
	srv := fakemodel.New(t)
	f := newFlow(t, srv, func(o *engine.Options) { o.Mode = posture.Plan })
	f.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("p"), Alt: true})
	f.typeLine("!touch nope.txt")
	f.waitFor("Plan mode has no shell")
	f.final()
	if _, err := os.Stat(filepath.Join(f.ws, "nope.txt")); err == nil {
		t.Fatal("Plan ran the command")
	}
}
