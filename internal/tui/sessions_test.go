package tui

import (
	"encoding/json"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// storedSession writes a real session journal with a prompt, reasoning, a
// tool call and its result, and a reply.
func storedSession(t *testing.T, home, ws string) string {
	t.Helper()
	j := session.NewJournal(home, session.Options{})
	t.Cleanup(func() { _ = j.Close() })
	info := engine.SessionInfo{ID: "0f1e2d3c-aaaa-4bbb-8ccc-123456789abc", Model: "deepseek-v4-flash", Workspace: ws, Mode: posture.Plan}
	msgs := []provider.Message{
		{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("explain the build"), provider.TextBlock("<turn_meta>x</turn_meta>")}},
		{Role: provider.RoleAssistant, Content: []provider.Block{provider.ThinkingBlock("look at the Makefile"),
			provider.ToolUseBlock("c1", "File", json.RawMessage(`{"action":"read","path":"Makefile"}`))}},
		{Role: provider.RoleUser, Content: []provider.Block{provider.ToolResultBlock("c1", "all: build", false)}},
		{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock("It runs `go build`.")}},
	}
	if err := j.Append(info, msgs...); err != nil {
		t.Fatal(err)
	}
	return info.ID
}

// CONTRACT.md §14.10: /sessions opens the picker for this workspace and resuming rebuilds the transcript and restores
// the session's mode.
func TestSessionsPickerResumesAndRebuildsTheTranscript(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	id := storedSession(t, home, ws)
	d := newDirect(t, 100, 30, func(o *Options) { o.Home, o.Workspace = home, ws })
	d.runCmd(d.submit("/sessions"))
	if _, ok := d.m.stack.Top().(*views.Picker); !ok {
		t.Fatalf("no picker:\n%s", d.screen())
	}
	d.mustShow("explain the build", "deepseek-v4-flash")
	cmd := d.key("enter")
	d.runCmd(cmd) // picker choice → load the session
	if op, ok := d.eng.lastOp().(engine.SyncSession); !ok || op.Session.ID != id || len(op.Session.Messages) != 4 {
		t.Fatalf("resume op = %#v", d.eng.lastOp())
	}
	d.mustShow("▎ explain the build", "✓ File read Makefile", "It runs `go build`.", "Resumed session 0f1e2d3c (4 messages).",
		" · plan · ")
}

// CONTRACT.md §14.10: a resume is refused while a turn runs.
func TestResumeIsRefusedWhileATurnRuns(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 120, 24, func(o *Options) { o.Home = t.TempDir() })
	d.submit("hi")
	d.events(engine.TurnStarted{})
	d.submit("/sessions open abc")
	d.mustShow("Cannot resume a session while a turn is running — press Esc to interrupt first")
}

// The sessions picker filters as you type after `/` and deletes a session
// after `d` and a confirming `y` (issue 14).
// README.md "Sessions": the session picker filters and deletes with d
// README.md "TUI keys": Ctrl+R's picker: / filters, d then y deletes
func TestSessionsPickerFiltersAndDeletes(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	for _, s := range []struct{ id, prompt string }{{"11111111-aaaa-4bbb-8ccc-000000000001", "fix the parser"},
		{"22222222-aaaa-4bbb-8ccc-000000000002", "write the docs"}} {
		j := session.NewJournal(home, session.Options{})
		info := engine.SessionInfo{ID: s.id, Model: "deepseek-v4-pro", Workspace: ws, Mode: posture.Act}
		if err := j.Append(info, provider.UserText(s.prompt), provider.Message{Role: provider.RoleAssistant,
			Content: []provider.Block{provider.TextBlock("ok")}}); err != nil {
			t.Fatal(err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}
	d := newDirect(t, 100, 30, func(o *Options) { o.Home, o.Workspace = home, ws })
	d.runCmd(d.submit("/sessions"))
	d.mustShow("fix the parser", "write the docs", "/ filter", "d delete")
	d.typeText("/docs")
	d.mustShow("Filter: docs", "write the docs")
	d.mustNotShow("fix the parser")
	d.key("enter") // keep the filter, back to the list
	d.typeText("d")
	d.mustShow("Delete write the docs? y delete")
	d.typeText("y")
	d.mustShow("Deleted session 22222222")
	metas, err := session.List(home, session.Query{Workspace: ws})
	if err != nil || len(metas) != 1 || metas[0].ID != "11111111-aaaa-4bbb-8ccc-000000000001" {
		t.Errorf("sessions after delete: %+v %v", metas, err)
	}
}
