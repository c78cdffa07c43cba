package tui_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// A person types into the composer at one key per 60 ms while the model
// calls File write (issue 14): no typed key answers the card, the composer
// keeps every key, and the file is written only after a deliberate y once
// the typing has paused.
//
// The typing is a person's only while the keys keep their pace: a gap of
// the guard's quiet time is a pause, after which a key may rightly answer
// the card. On a loaded machine a tmux send-keys can take that long, so an
// attempt whose keys fell that far apart while the card was open proves
// nothing and is tried again (at most three times); any other outcome
// counts.
func TestE2ETypeAheadNeverAnswersTheApprovalCard(t *testing.T) {
	t.Parallel()
	for attempt := 1; ; attempt++ {
		why := typeAheadAttempt(t)
		if why == "" {
			return
		}
		if attempt == 3 {
			t.Fatalf("three attempts, none a person's typing: %s", why)
		}
		t.Logf("attempt %d proves nothing (%s); again", attempt, why)
	}
}

// typeAheadAttempt runs the scenario once. It fails t on a wrong outcome
// and returns why the attempt proves nothing, or "" when it counted.
func typeAheadAttempt(t *testing.T) string {
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

	// The pane is watched beside the typing, so the keys keep their pace.
	var sent atomic.Int32 // keys sent so far
	cardAt := make(chan int, 1)
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if strings.Contains(p.capture(), "┌ approval") {
				cardAt <- int(sent.Load())
				return
			}
			time.Sleep(5 * time.Millisecond) // polling interval of the pane, not a synchronisation delay
		}
	}()
	const typed = "yes please also add a unit test for the parser and docs"
	tick := time.NewTicker(60 * time.Millisecond) // a person's typing pace, not a synchronisation wait
	defer tick.Stop()
	at := make([]time.Time, 0, len(typed))
	for i, r := range typed {
		if i == 6 {
			close(release)
		}
		p.keys("-l", string(r))
		at = append(at, time.Now())
		sent.Add(1)
		<-tick.C
	}
	close(stop)
	<-watched
	card := -1
	select {
	case card = <-cardAt:
	default:
	}
	if card < 0 || card > len(typed)-15 {
		return fmt.Sprintf("the card opened at key %d of %d; the scenario needs it open while typing goes on", card, len(typed))
	}
	gap := time.Duration(0)
	for i := max(card, 1); i < len(at); i++ {
		gap = max(gap, at[i].Sub(at[i-1]))
	}
	t.Logf("card on screen from key %d; %d keys typed while it was open, %v at most between two", card, len(typed)-card, gap)
	screen := p.capture()
	answered := !strings.Contains(screen, "┌ approval") || !strings.Contains(screen, "File: notes.txt")
	if _, err := os.Stat(filepath.Join(p.ws, "notes.txt")); err == nil {
		answered = true
	}
	if answered && gap >= views.GraceQuiet-100*time.Millisecond {
		return fmt.Sprintf("the card was answered after the keys fell %v apart, a pause", gap)
	}
	if answered {
		t.Fatalf("a typed key answered the card (keys at most %v apart):\n%s", gap, screen)
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
	return ""
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
