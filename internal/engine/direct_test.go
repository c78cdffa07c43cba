package engine_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/toolset"
)

// runDirect sends a host call and collects its events up to its
// ToolCallComplete, answering any card with answer.
func (h *harness) runDirect(id, command string, answer engine.Op, onEvent func(engine.Event)) (evs []engine.Event, done engine.ToolCallComplete) {
	h.t.Helper()
	in, _ := json.Marshal(map[string]string{"action": "run", "command": command})
	h.eng.Submit(engine.RunToolCall{ID: id, Name: "Bash", Input: in})
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-h.eng.Events():
			evs = append(evs, ev)
			if onEvent != nil {
				onEvent(ev)
			}
			switch ev := ev.(type) {
			case engine.ApprovalRequired:
				switch a := answer.(type) {
				case engine.ApproveToolCall:
					a.ID = ev.ID
					h.eng.Submit(a)
				case engine.DenyToolCall:
					a.ID = ev.ID
					h.eng.Submit(a)
				default:
					h.t.Fatalf("unexpected card for %q", command)
				}
			case engine.ToolCallComplete:
				return evs, ev
			}
		case <-timeout:
			h.t.Fatalf("host call did not complete; events: %v", describe(evs))
		}
	}
}

// directHarness is an interactive engine under posture whose tools have a
// real job manager, so Bash runs real commands.
func directHarness(t *testing.T, p posture.Posture) *harness {
	srv := fakemodel.New(t)
	jm, err := jobs.NewManager(jobs.Options{Shell: "/bin/sh", KillGrace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return newHarness(t, srv, func(o *engine.Options) {
		o.Mode, o.Posture, o.Interactive, o.AutoApprove, o.AllowShell = posture.Act, p, true, false, true
		svc := toolset.NewServices(toolset.Options{Workspace: o.Workspace})
		svc.Jobs = jm
		o.Tools = svc.Toolset
	})
}

// A host call runs through the model's gates without a model: a read-only
// command runs at once, a mutating one opens the card under Ask and runs
// only on yes; nothing reaches the history or the provider.
// CONTRACT.md §8.5: a host call passes the model's gates without a model (the card under Ask, run only on yes) and
// no request reaches the provider.
func TestRunToolCallUsesTheApprovalPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		command  string
		answer   engine.Op
		card     bool
		ran      bool
		contains string
	}{
		{"read-only runs without a card", "echo hello-direct", nil, false, false, "hello-direct"},
		{"mutating asks and runs on yes", "touch made.txt && echo made", engine.ApproveToolCall{}, true, true, "made"},
		{"mutating asks and stays undone on no", "touch made.txt && echo made", engine.DenyToolCall{}, true, false, "denied by user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := directHarness(t, posture.Ask)
			evs, done := h.runDirect("host_1", tt.command, tt.answer, nil)
			if _, ok := evs[0].(engine.ToolCallStarted); !ok {
				t.Fatalf("first event %T, want ToolCallStarted: %v", evs[0], describe(evs))
			}
			cards := 0
			for _, ev := range evs {
				if _, ok := ev.(engine.ApprovalRequired); ok {
					cards++
				}
			}
			if (cards > 0) != tt.card {
				t.Errorf("cards = %d, want card %v", cards, tt.card)
			}
			if done.ID != "host_1" || !strings.Contains(done.Result.Content, tt.contains) {
				t.Errorf("complete = %+v, want id host_1 and %q", done, tt.contains)
			}
			_, err := os.Stat(filepath.Join(h.ws, "made.txt"))
			if (err == nil) != tt.ran {
				t.Errorf("made.txt exists = %v, want %v", err == nil, tt.ran)
			}
			if n := len(h.eng.Snapshot().Messages); n != 0 {
				t.Errorf("history has %d messages, want none", n)
			}
			if n := len(h.srv.Requests()); n != 0 {
				t.Errorf("%d provider requests, want none", n)
			}
		})
	}
}

// The slot is free once the host call's ToolCallComplete arrives: a
// message sent on it starts a turn.
// CONTRACT.md §8.5: the slot is free when the host call's ToolCallComplete arrives: a message sent on it starts a
// turn.
func TestRunToolCallFreesTheSlotBeforeItsComplete(t *testing.T) {
	t.Parallel()
	h := directHarness(t, posture.FullAccess)
	h.srv.Push(fakemodel.Text("ok"))
	h.runDirect("host_2", "echo one", nil, nil)
	evs := h.turn("next")
	for _, ev := range evs {
		if e, ok := ev.(engine.Error); ok {
			t.Fatalf("turn after a host call refused: %s", e.Message)
		}
	}
}
