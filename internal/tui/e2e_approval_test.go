package tui_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// The repro of issue 23 §7 against the real binary: a person is typing
// when a card opens and goes on typing words with pauses longer than any
// key guard (0.6 s). An explicit-approval `git push --force` is not
// approved by "you can stop now", a saveable command saves no rule on "so
// that it works", Enter queues the draft instead of denying, and the
// composer keeps every key. Only Tab and then an answer answers.
func TestE2ETypingWithPausesNeverAnswersTheApprovalCard(t *testing.T) {
	t.Parallel()
	gates := []chan struct{}{make(chan struct{}), make(chan struct{})}
	srv := fakemodel.New(t)
	var n atomic.Int32
	wait := func(gate chan struct{}) {
		select {
		case <-gate:
		case <-time.After(30 * time.Second): // the test failed before opening it
		}
	}
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
		switch n.Add(1) {
		case 1:
			wait(gates[0])
			return bashCall("p1", "git push --force origin main")
		case 2:
			wait(gates[1])
			return bashCall("s1", "touch saved.txt")
		case 3:
			return fakemodel.Text("Both were denied.")
		}
		return fakemodel.Text("Got your message.")
	})
	p := startTUI(t, srv)
	p.line("ship it")
	p.waitFor("Esc to interrupt")

	// Each card opens while a draft is in the composer, so it opens
	// without focus whatever the machine's speed.
	p.keys("-l", "ok, ")
	p.waitFor("❯ ok,")
	close(gates[0])
	p.waitFor("Command: git push --force origin main", views.UnfocusedHint)
	typeWithPauses(p, "you can stop now")
	p.keys("Enter")
	p.waitFor("Queued #1: ok, you can stop now", "Command: git push --force origin main", views.UnfocusedHint)
	if strings.Contains(p.capture(), "denied by user") {
		t.Fatalf("Enter answered the card:\n%s", p.capture())
	}
	p.focusCard("Command: git push --force origin main", "y allow once · n deny")
	p.keys("n")
	p.waitFor("denied by user")

	p.keys("-l", "and ")
	p.waitFor("❯ and")
	close(gates[1])
	p.waitFor("Command: touch saved.txt", views.UnfocusedHint)
	typeWithPauses(p, "so that it works")
	p.waitFor("❯ and so that it works", "Command: touch saved.txt", views.UnfocusedHint)
	if _, err := os.Stat(filepath.Join(p.home, "permissions.toml")); err == nil {
		t.Fatal("typing saved a permission rule")
	}
	if _, err := os.Stat(filepath.Join(p.ws, "saved.txt")); err == nil {
		t.Fatal("typing approved the command")
	}
	p.focusCard("Command: touch saved.txt", approvalReady)
	p.keys("n")
	p.waitFor("● Both were denied.", "● Got your message.", "❯ and so that it works")
	if got := srv.Requests()[3].LastUserText(); !strings.HasPrefix(got, "ok, you can stop now\n") {
		t.Errorf("the queued message sent was %q", got)
	}
	if _, err := os.Stat(filepath.Join(p.home, "permissions.toml")); err == nil {
		t.Error("a permission rule was saved")
	}
}

// typeWithPauses types words at a person's pace (60 ms a key) with a 0.6 s
// pause before each word: longer than the key guard this replaced, which
// took the key after a pause as an answer.
func typeWithPauses(p *pane, words string) {
	p.t.Helper()
	for i, w := range strings.Split(words, " ") {
		time.Sleep(600 * time.Millisecond) // a person's pause, the condition under test, not a synchronisation wait
		if i > 0 {
			w = " " + w
		}
		for _, r := range w {
			p.keys("-l", string(r))
			time.Sleep(60 * time.Millisecond) // a person's typing pace, not a synchronisation wait
		}
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
	p.waitFor("Command (2 lines):", "1 │ echo ok", "2 │ touch X")
	p.focusCard("Command (2 lines):", approvalReady)
	p.keys("n")
	p.waitFor("denied by user", "● Fine.")
	if _, err := os.Stat(filepath.Join(p.ws, "X")); err == nil {
		t.Error("the denied script ran")
	}
	p.line("queue a task")
	p.waitFor("Auto-approve: yes", "Allow shell: yes", "Trust mode: no", "Model: the session's model")
	p.focusCard("Auto-approve: yes", approvalReady)
	p.keys("n")
	p.waitFor("● Not queued.")
}

// CONTRACT.md §14.1 and §14.6: the posture chord while a card waits, against the real binary: a person
// typing when a card opens goes on typing, then presses Shift+Tab: the
// posture changes in the status bar, the card is not answered, the draft
// keeps every key, and the focused card shows the rule s would save.
func TestE2EShiftTabOverAnOpenCardChangesOnlyThePosture(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	srv := fakemodel.New(t)
	var n atomic.Int32
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
		if n.Add(1) == 1 {
			select {
			case <-gate:
			case <-time.After(30 * time.Second): // the test failed before opening it
			}
			return bashCall("t1", "touch saved.txt")
		}
		return fakemodel.Text("Denied, as you wished.")
	})
	p := startTUI(t, srv)
	p.waitFor(" · act · effort auto · ask · ")
	p.line("touch it")
	p.waitFor("Esc to interrupt")
	p.keys("-l", "wait, ")
	p.waitFor("❯ wait,")
	close(gate)
	p.waitFor("Command: touch saved.txt", views.UnfocusedHint)
	typeWithPauses(p, "let me think")
	p.keys("BTab")
	p.waitFor(" · auto · ", "Permissions: Auto-Review (from the next step)", "Command: touch saved.txt",
		`s saves: allow tool=Bash tool_action="run" command="touch saved.txt" command_exact`, "❯ wait, let me think")
	if _, err := os.Stat(filepath.Join(p.ws, "saved.txt")); err == nil {
		t.Fatalf("Shift+Tab approved the command:\n%s", p.capture())
	}
	p.focusCard("Command: touch saved.txt", "s always")
	p.keys("n")
	p.waitFor("denied by user", "● Denied, as you wished.", "❯ wait, let me think")
	if _, err := os.Stat(filepath.Join(p.ws, "saved.txt")); err == nil {
		t.Error("a denied command ran")
	}
	if _, err := os.Stat(filepath.Join(p.home, "permissions.toml")); err == nil {
		t.Error("a permission rule was saved")
	}
}
