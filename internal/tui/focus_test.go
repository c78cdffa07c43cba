package tui

import (
	"encoding/json"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// The approval card's focus rule (CONTRACT.md §14.6, issue 23 §7).

func TestApprovalCardFlow(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 30)
	d.submit("make a task")
	req := engine.ApprovalRequired{ID: "call_1", ToolName: "tasks", Description: "tasks create · write docs",
		Input: json.RawMessage(`{"action":"create","prompt":"write docs"}`)}
	d.events(engine.TurnStarted{TurnID: "t1"}, engine.ApprovalRequired{ID: "call_0", ToolName: "tasks",
		Input: json.RawMessage(`{}`)}, req)
	// Enter was pressed just now: the card opens without focus.
	d.mustShow("approval", "▸ Deny this call", "waiting on you…", views.UnfocusedHint)
	d.key("y")
	if _, ok := d.m.stack.Top().(*views.Approval); !ok {
		t.Fatal("a letter answered an unfocused card")
	}
	if got := d.m.comp.Value(); got != "y" {
		t.Fatalf("composer = %q, want the key it was typed for", got)
	}
	d.mustShow(views.UnfocusedHint, "❯ y")
	d.key("backspace", "tab", "enter")
	if op, ok := d.eng.lastOp().(engine.DenyToolCall); !ok || op.ID != "call_0" || op.Abort {
		t.Fatalf("Tab, Enter = %#v, want a plain deny of call_0", d.eng.lastOp())
	}
	// The queued second request opens at once after a key: without focus.
	d.mustShow("write docs", views.UnfocusedHint)
	d.key("a")
	if _, ok := d.m.stack.Top().(*views.Approval); !ok {
		t.Fatal("the focus rule applies to the next card too")
	}
	d.key("backspace", "tab", "a")
	if op, ok := d.eng.lastOp().(engine.ApproveToolCall); !ok || op.ID != "call_1" || !op.ForSession {
		t.Fatalf("a = %#v", d.eng.lastOp())
	}
	if d.m.stack.Top() != nil {
		t.Error("card closed after answering")
	}
}

// A card that opens while nobody is typing (an empty composer, no key for
// a second) has the keys at once.
// README.md "Modes and permissions": a card that opens while you are idle takes the keys at once.
func TestApprovalCardOpensFocusedWhenNobodyTypes(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 30)
	d.submit("make a task")
	d.clock.Advance(typingWindow)
	d.events(engine.TurnStarted{TurnID: "t1"}, engine.ApprovalRequired{ID: "c1", ToolName: "tasks", Input: json.RawMessage(`{}`)})
	d.mustShow(views.ApprovalHints + views.FocusedTail)
	d.mustNotShow("❯ ")
	d.key("y")
	if op, ok := d.eng.lastOp().(engine.ApproveToolCall); !ok || op.ID != "c1" {
		t.Fatalf("y = %#v", d.eng.lastOp())
	}
}

// The repro of issue 23 §7: a person types over a card that opened while
// they typed, pausing longer than any guard (0.6 s between keys). Nothing
// is approved, denied or saved, the words stay in the composer, and Enter
// queues them behind the turn as it would with no card at all.
// README.md "Modes and permissions": typing with pauses over a card never answers it and Enter queues the draft as usual.
func TestTypingWithPausesNeverAnswersACard(t *testing.T) {
	t.Parallel()
	push := engine.ApprovalRequired{ID: "p1", ToolName: "Bash", Description: "Bash · git push --force origin main",
		Input: json.RawMessage(`{"command":"git push --force origin main"}`), ForcePrompt: true, Reason: "force-pushes main"}
	save := engine.ApprovalRequired{ID: "m1", ToolName: "Bash", Description: "Bash · make lint",
		Input: json.RawMessage(`{"command":"make lint"}`), SaveRule: `allow tool=Bash command="make lint" command_exact`}
	for _, tc := range []struct {
		req   engine.ApprovalRequired
		words string
	}{{push, "you can stop now"}, {save, "so that it works"}} {
		t.Run(tc.req.ID, func(t *testing.T) {
			t.Parallel()
			d := newDirect(t, 100, 30)
			d.submit("deploy it")
			d.typeText(tc.words[:1])
			d.events(engine.TurnStarted{TurnID: "t1"}, tc.req)
			for _, r := range tc.words[1:] {
				d.clock.Advance(600 * time.Millisecond)
				d.typeText(string(r))
			}
			d.clock.Advance(2 * time.Second)
			sent := len(d.eng.Ops())
			d.key("enter")
			if ops := d.eng.Ops()[sent:]; len(ops) != 0 {
				t.Fatalf("Enter over an unfocused card sent %#v", ops)
			}
			if _, ok := d.m.stack.Top().(*views.Approval); !ok {
				t.Fatal("the card was answered")
			}
			for _, op := range d.eng.Ops() {
				switch op.(type) {
				case engine.ApproveToolCall, engine.DenyToolCall:
					t.Fatalf("typing answered the card: %#v", op)
				}
			}
			if d.m.queue.len() != 1 || d.m.queue.items[0] != tc.words {
				t.Fatalf("queue = %q, want the words queued behind the turn", d.m.queue.items)
			}
		})
	}
}

// Keys that arrive in one terminal read are typing, not an answer: a burst
// over a focused card goes to the composer and takes the keys with it.
func TestABurstOfKeysNeverAnswersAFocusedCard(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 30)
	d.clock.Advance(typingWindow)
	d.events(engine.ApprovalRequired{ID: "c1", ToolName: "tasks", Input: json.RawMessage(`{}`)})
	d.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("yes")})
	if got := d.m.comp.Value(); got != "yes" || len(d.eng.Ops()) != 0 {
		t.Fatalf("composer %q, ops %#v", got, d.eng.Ops())
	}
	d.mustShow(views.UnfocusedHint, "❯ yes")
}
