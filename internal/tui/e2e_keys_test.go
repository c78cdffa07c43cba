package tui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// The quit/clear/interrupt table (CONTRACT.md §14.6), typed at 80×24 the
// way a person types: words, a pause, then the key.

// pause is a person's gap between typing and reaching for a chord.
func pause() { time.Sleep(150 * time.Millisecond) }

func small(srv *fakemodel.Server, t *testing.T) *pane {
	return launchTUI(t, srv, launch{home: t.TempDir(), ws: t.TempDir(), w: 80, h: 24})
}

// userTexts are the user messages the model was sent, their meta cut off.
func userTexts(r *fakemodel.Request) []string {
	var out []string
	for _, m := range r.Messages() {
		if m["role"] != "user" {
			continue
		}
		s, _ := m["content"].(string)
		if s == "" {
			if parts, ok := m["content"].([]any); ok && len(parts) > 0 {
				if p, ok := parts[0].(map[string]any); ok {
					s, _ = p["text"].(string)
				}
			}
		}
		s, _, _ = strings.Cut(s, "\n<turn_meta>")
		out = append(out, s)
	}
	return out
}

// Idle: Ctrl+C clears a draft into ↑ history; Ctrl+D with a draft edits;
// Ctrl+D on an empty composer quits.
// README.md "TUI keys": Ctrl+C clears the draft (↑ brings it back); Ctrl+D on an empty composer quits
func TestE2EKeysIdleCtrlCClearsTheDraftAndCtrlDQuits(t *testing.T) {
	t.Parallel()
	p := small(nil, t)
	p.keys("-l", "a draft worth keeping")
	pause()
	p.keys("C-c")
	p.waitFor("Draft cleared — ↑ or Ctrl+Z brings it back")
	if strings.Contains(p.capture(), "❯ a draft worth keeping") {
		t.Fatalf("Ctrl+C left the draft:\n%s", p.capture())
	}
	p.keys("Up")
	p.waitFor("❯ a draft worth keeping")
	pause()
	p.keys("C-d") // a draft: Ctrl+D edits, never quits
	pause()
	p.waitFor("❯ a draft worth keeping")
	p.keys("C-c")
	p.waitFor("Draft cleared")
	pause()
	p.keys("C-d")
	p.waitFor("[codewhale exited: 0]")
}

// Idle: Ctrl+C twice on an empty composer quits.
// README.md "TUI keys": Ctrl+C twice quits
func TestE2EKeysIdleCtrlCTwiceQuits(t *testing.T) {
	t.Parallel()
	p := small(nil, t)
	p.keys("C-c")
	p.waitFor("Press Ctrl+C again to quit")
	p.keys("C-c")
	p.waitFor("[codewhale exited: 0]")
}

// During a stream: Ctrl+D does not quit, Ctrl+C first clears the draft,
// then interrupts; the prompt comes back marked, the first key typed adds
// to it (D14), and Enter sends it once.
// README.md "TUI keys": during a turn Ctrl+C clears the draft, then interrupts
func TestE2EKeysDuringAStreamClearThenInterrupt(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Stall: true}, fakemodel.Text("answered once"))
	p := small(srv, t)
	p.line("hello there")
	p.waitFor("Esc to interrupt")
	pause()
	p.keys("C-d")
	p.waitFor("A turn is running — Esc or Ctrl+C interrupts it")
	p.keys("-l", "a follow-up")
	pause()
	p.keys("C-c")
	p.waitFor("Draft cleared", "Esc to interrupt")
	pause()
	p.keys("C-c")
	p.waitFor("❯ hello there", "↺ interrupted message")
	p.keys("-l", " again")
	p.waitFor("❯ hello there again")
	pause()
	p.keys("Enter")
	p.waitFor("● answered once")
	reqs := srv.Requests()
	if got := userTexts(reqs[len(reqs)-1]); len(got) != 1 || got[0] != "hello there again" {
		t.Errorf("the model read the user messages %q, want the edited one once", got)
	}
	if n := strings.Count(p.capture(), "▎ hello there"); n != 1 {
		t.Errorf("the transcript shows the message %d times:\n%s", n, p.capture())
	}
}

// Esc during a stream puts the prompt back, marked; Enter resends it and
// the model reads it once, not twice (D14).
// README.md "TUI keys": Esc before any reply puts the message back marked ↺ interrupted message; Enter sends it once
func TestE2EKeysEscRestoresThePromptAndSendsItOnce(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Stall: true}, fakemodel.Text("answered"))
	p := small(srv, t)
	p.line("say hi")
	p.waitFor("Esc to interrupt")
	pause()
	p.keys("Escape")
	p.waitFor("❯ say hi", "↺ interrupted message", "Interrupted before any reply")
	pause()
	p.keys("Enter")
	p.waitFor("● answered")
	reqs := srv.Requests()
	if got := userTexts(reqs[len(reqs)-1]); len(got) != 1 || got[0] != "say hi" {
		t.Errorf("the model read the user messages %q, want \"say hi\" once", got)
	}
}

// During a tool run: Ctrl+D refuses, Ctrl+C interrupts (the command is
// killed), then Ctrl+C twice quits.
func TestE2EKeysDuringAToolRun(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, bashCall("c1", "echo tool-started; sleep 30"), fakemodel.Text("after"))
	p := small(srv, t)
	p.line("run it")
	p.focusCard("sleep 30", approvalReady)
	p.keys("y")
	p.waitFor("tool-started")
	pause()
	p.keys("C-d")
	p.waitFor("A turn is running — Esc or Ctrl+C interrupts it")
	p.keys("C-c")
	p.waitFor("Command canceled; process killed.", "▎ run it") // the turn had answered: the message stays
	if strings.Contains(p.capture(), "↺ interrupted message") {
		t.Errorf("a turn that ran a tool put its message back:\n%s", p.capture())
	}
	pause()
	p.keys("C-c")
	p.waitFor("Press Ctrl+C again to quit")
	p.keys("C-c")
	p.waitFor("[codewhale exited: 0]")
}

// A retry's wait counts down on the status line (it said its first figure
// until the retry).
func TestE2ERetryCountdownCounts(t *testing.T) {
	t.Parallel()
	limited := fakemodel.Reply{Status: 429, Body: `{"error":{"message":"slow down"}}`, Header: map[string]string{"Retry-After": "3"}}
	p := small(fakemodel.New(t, limited, fakemodel.Text("after the wait")), t)
	p.line("go")
	p.waitFor("retrying in 3 s")
	p.waitFor("retrying in 2 s")
	p.waitFor("retrying in 1 s")
	p.waitFor("● after the wait")
}

// /tools names the request's tools on its first screen at 80×24.
func TestE2EToolsNamesOnTheFirstScreenAt80x24(t *testing.T) {
	t.Parallel()
	p := small(fakemodel.New(t, fakemodel.Text("ok")), t)
	p.line("hi")
	p.waitFor("✓ done")
	p.line("/tools")
	p.waitFor("Prepared Tool Request", "Tools in this request (")
}

// At 40 columns the header's posture chip is cut with an ellipsis, not
// clipped mid-word by the pane's edge.
func TestE2EHeaderAt40ColumnsEndsInAnEllipsis(t *testing.T) {
	t.Parallel()
	p := launchTUI(t, nil, launch{home: t.TempDir(), ws: t.TempDir(), w: 40, h: 20})
	p.keys("BTab")
	pause()
	p.keys("BTab") // Full Access: the widest chip
	var first string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) { // polling the pane
		first = strings.TrimRight(strings.SplitN(p.capture(), "\n", 2)[0], " ")
		if strings.Contains(first, "Full") || strings.HasSuffix(first, "…") {
			break
		}
	}
	if !strings.HasSuffix(first, "…") {
		t.Errorf("the 40-column header is clipped without an ellipsis: %q", first)
	}
}

// A call waiting behind another call's card is drawn queued, not spinning.
func TestE2EQueuedCallDoesNotSpinBehindACard(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(
		fakemodel.Call{ID: "c1", Name: "Bash", Args: `{"command":"touch first.txt"}`},
		fakemodel.Call{ID: "c2", Name: "Bash", Args: `{"command":"touch second.txt"}`}), fakemodel.Text("both"))
	p := small(srv, t)
	p.line("two calls")
	p.focusCard("Command: touch first.txt", approvalReady)
	p.waitFor("◆ Bash touch first.txt", "◇ Bash touch second.txt  queued behind the card")
	p.keys("y")
	p.focusCard("Command: touch second.txt", approvalReady)
	p.keys("y")
	p.waitFor("● both")
}

// Selection mode stays on screen for as long as it lasts, not a toast's
// few seconds.
func TestE2ESelectionModeStaysMarked(t *testing.T) {
	t.Parallel()
	p := small(nil, t)
	p.keys("M-s")
	p.waitFor("selection mode · Alt+S scrolls again")
	time.Sleep(6 * time.Second) // longer than any toast
	p.waitFor("selection mode · Alt+S scrolls again")
	p.keys("M-s")
	p.waitFor("Mouse captured again")
	if strings.Contains(p.capture(), "selection mode ·") {
		t.Errorf("selection mode is still marked after Alt+S:\n%s", p.capture())
	}
}
