package engine_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// A resumed history with a 40 MB tool result: the request carries it cut
// to the result budget with a receipt, and the session file is not
// rewritten.
func TestOversizedHistoryIsCutNotSent(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("0123456789abcdef\n", 40<<20/17)
	sess := &engine.Session{ID: "big", Messages: []provider.Message{
		provider.UserText("read the log"),
		{Role: provider.RoleAssistant, Content: []provider.Block{provider.ToolUseBlock("c1", "Bash", json.RawMessage(`{"command":"cat log"}`))}},
		{Role: provider.RoleUser, Content: []provider.Block{provider.ToolResultBlock("c1", huge, false)}},
		{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock("It is long.")}},
	}}
	j := &faultJournal{}
	srv := fakemodel.New(t, fakemodel.Text("ok"))
	h := newHarness(t, srv, func(o *engine.Options) { o.Session, o.Journal, o.AutoCompactPercent = sess, j, 80 })
	evs := h.turn("and now?")
	if tc := done(t, evs); tc.Status != engine.TurnCompleted {
		t.Fatalf("outcome %+v: %v", tc, describe(evs))
	}
	req := srv.Requests()[0]
	if len(req.Raw) > 200<<10 || !req.HasToolResult("Bash output compacted to protect context") {
		t.Errorf("request of %d bytes", len(req.Raw))
	}
	if !strings.Contains(strings.Join(describe(evs), "\n"), "status:Cut 1 oversized item(s) in the history") {
		t.Errorf("no notice: %v", describe(evs))
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.rewrites) != 0 {
		t.Error("the session file was rewritten")
	}
	if got := sess.Messages[2].Content[0].Content; len(got) != len(huge) {
		t.Error("the caller's session was changed")
	}
}

// A request over the window even after cutting is never sent.
// README.md "Sessions": a request that would still exceed the model's window is not sent and the turn says so
func TestOverBudgetRequestIsNotSent(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("never"))
	h := newHarness(t, srv, func(o *engine.Options) { o.ContextWindow = 7000 })
	tc := done(t, h.turn(strings.Repeat("a long pasted line ", 5000)))
	if tc.Status != engine.TurnFailed || !strings.HasPrefix(tc.Error, "Not sent: this request would be about") || len(srv.Requests()) != 0 {
		t.Errorf("outcome %+v, %d requests", tc, len(srv.Requests()))
	}
}
