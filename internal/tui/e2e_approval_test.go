package tui_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// A person types into the composer at one key per 60 ms while the model
// calls File write (issue 14): no typed key answers the card, the composer
// keeps every key, and the file is written only after a deliberate y once
// the typing has paused.
func TestE2ETypeAheadNeverAnswersTheApprovalCard(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := fakemodel.New(t)
	args, _ := json.Marshal(map[string]any{"action": "write", "path": "notes.txt", "content": "written after approval\n"})
	n := 0
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
		n++
		if n > 1 {
			return fakemodel.Text("Wrote it.")
		}
		select {
		case <-release:
		case <-time.After(20 * time.Second):
		}
		r := fakemodel.Tools(fakemodel.Call{ID: "w1", Name: "File", Args: string(args)})
		r.Text = "I'll write the notes file now."
		return r
	})
	p := startTUI(t, srv)
	p.line("write the notes")
	p.waitFor("Esc to interrupt")

	const typed = "yes please also add a unit test for the parser and docs"
	tick := time.NewTicker(60 * time.Millisecond) // a person's typing pace, not a synchronisation wait
	defer tick.Stop()
	cardAt := -1
	for i, r := range typed {
		if i == 6 {
			close(release)
		}
		p.keys("-l", string(r))
		<-tick.C
		if cardAt < 0 && strings.Contains(p.capture(), "┌ approval") {
			cardAt = i
		}
	}
	if cardAt < 0 || cardAt > len(typed)-15 {
		t.Fatalf("the card opened at key %d of %d; the test needs it open while typing goes on:\n%s", cardAt, len(typed), p.capture())
	}
	t.Logf("card on screen from key %d; %d keys typed while it was open", cardAt, len(typed)-cardAt-1)
	screen := p.capture()
	if !strings.Contains(screen, "┌ approval") || !strings.Contains(screen, "File: notes.txt") {
		t.Fatalf("a typed key answered the card:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(p.ws, "notes.txt")); err == nil {
		t.Fatalf("the file was written before anyone answered:\n%s", screen)
	}
	p.waitFor("❯ "+typed, "▸ Deny this call", approvalReady)
	if _, err := os.Stat(filepath.Join(p.ws, "notes.txt")); err == nil {
		t.Fatal("the file was written before anyone answered")
	}
	p.keys("y")
	p.waitFor("✓ File write notes.txt", "● Wrote it.", "❯ "+typed)
	got, err := os.ReadFile(filepath.Join(p.ws, "notes.txt"))
	if err != nil || string(got) != "written after approval\n" {
		t.Errorf("notes.txt = %q, %v", got, err)
	}
}

// A multi-line script reads as its lines on the card (issue 11 §5), and a
// tasks create shows the authority it would carry.
func TestE2EApprovalCardShowsTheWholeScriptAndTheTaskFlags(t *testing.T) {
	t.Parallel()
	task, _ := json.Marshal(map[string]any{"action": "create", "prompt": "tidy up", "auto_approve": true, "allow_shell": true})
	srv := fakemodel.New(t, bashCall("s1", "echo ok\ntouch X"), fakemodel.Text("Fine."),
		fakemodel.Tools(fakemodel.Call{ID: "t1", Name: "tasks", Args: string(task)}), fakemodel.Text("Not queued."))
	p := startTUI(t, srv)
	p.line("run the script")
	p.waitFor("Command (2 lines):", "1 │ echo ok", "2 │ touch X", approvalReady)
	p.keys("n")
	p.waitFor("denied by user", "● Fine.")
	if _, err := os.Stat(filepath.Join(p.ws, "X")); err == nil {
		t.Error("the denied script ran")
	}
	p.line("queue a task")
	p.waitFor("Auto-approve: yes", "Allow shell: yes", "Trust mode: no", "Model: the session's model", approvalReady)
	p.keys("n")
	p.waitFor("● Not queued.")
}
