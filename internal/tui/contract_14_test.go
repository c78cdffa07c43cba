package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/approvalcard"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/mcp"
	"github.com/codewhale/codewhale/internal/permissions"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tui/commands"
	"github.com/codewhale/codewhale/internal/tui/services"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// answered reports the first op among ops that answers a card.
func answered(ops []engine.Op) engine.Op {
	for _, op := range ops {
		switch op.(type) {
		case engine.ApproveToolCall, engine.DenyToolCall:
			return op
		}
	}
	return nil
}

// CONTRACT.md §14.6: the approval card lists, in order, Allow once (y), Allow
// for this session (this kind) (a), Deny this call (n) and Abort the turn
// (Esc), with Deny selected initially so a reflexive Enter denies; the card
// of the person's own !command has no Abort the turn (Esc denies); its
// missing intent line is TestE2EShellCommandCardHasNoIntentAndNoAbort's.
// README.md "Modes and permissions": the card's y/a/s/n/Esc answers, with Deny preselected.
func TestContract14_6CardOptionsAndDenyFirst(t *testing.T) {
	t.Parallel()
	req := engine.ApprovalRequired{ID: "c1", ToolName: "Bash", Description: "Bash · make lint",
		Input: json.RawMessage(`{"command":"make lint"}`)}
	for _, tc := range []struct {
		name   string
		direct bool
		want   []string
		esc    engine.Op
	}{
		{"turn", false, []string{"Allow once", "Allow for this session (this kind)", "Deny this call", "Abort the turn"},
			engine.DenyToolCall{ID: "c1", Abort: true}},
		{"own command", true, []string{"Allow once", "Allow for this session (this kind)", "Deny this call"},
			engine.DenyToolCall{ID: "c1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := req
			r.Direct = tc.direct
			a := views.NewApproval(theme.Plain(), r, true)
			var got []string
			for _, c := range approvalcard.Options(r) {
				got = append(got, c.Text())
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("options %q, want %q", got, tc.want)
			}
			if a.Selected() != views.Deny {
				t.Errorf("selected initially: %v, want Deny", a.Selected())
			}
			frame := a.View(100, 20)
			if tc.direct == strings.Contains(frame, "Esc abort") || tc.direct != strings.Contains(frame, "Esc deny") {
				t.Errorf("edge of the card:\n%s", frame)
			}
			for k, want := range map[string]engine.Op{"enter": engine.DenyToolCall{ID: "c1"}, "esc": tc.esc,
				"y": engine.ApproveToolCall{ID: "c1"}, "a": engine.ApproveToolCall{ID: "c1", ForSession: true},
				"n": engine.DenyToolCall{ID: "c1"}} {
				d := newDirect(t, 100, 30)
				d.clock.Advance(typingWindow)
				d.events(engine.TurnStarted{TurnID: "t1"}, r)
				d.key(k)
				if op := answered(d.eng.Ops()); op != want {
					t.Errorf("%s on a focused card sent %#v, want %#v", k, op, want)
				}
			}
		})
	}
}

// CONTRACT.md §14.6: no typed key answers a card that opened while the person
// typed — every answer key goes into the composer — and Enter then sends or
// queues the draft as usual instead of answering.
// README.md "TUI keys": a card that opened while you typed takes no keys until Tab
func TestContract14_6TypedKeysNeverAnswerAnUnfocusedCard(t *testing.T) {
	t.Parallel()
	req := engine.ApprovalRequired{ID: "m1", ToolName: "Bash", Description: "Bash · make lint",
		Input: json.RawMessage(`{"command":"make lint"}`), SaveRule: `allow tool=Bash command="make lint" command_exact`}
	keys := []string{"y", "Y", "a", "A", "s", "S", "n", "N", "d", "D", "1", "2", "3", "j", "k"}
	d := newDirect(t, 100, 30)
	d.submit("lint it")
	d.events(engine.TurnStarted{TurnID: "t1"}, req)
	d.mustShow(views.UnfocusedHint)
	for _, k := range keys {
		d.key(k)
	}
	if op := answered(d.eng.Ops()); op != nil {
		t.Fatalf("typing answered the card: %#v", op)
	}
	if got, want := d.m.comp.Value(), strings.Join(keys, ""); got != want {
		t.Fatalf("composer = %q, want every typed key %q", got, want)
	}
	d.mustShow(views.UnfocusedHint, "❯ "+strings.Join(keys, ""))
	d.key("enter")
	if op := answered(d.eng.Ops()); op != nil {
		t.Fatalf("Enter answered the unfocused card: %#v", op)
	}
	if d.m.stack.TopApproval() == nil {
		t.Fatal("Enter closed the card")
	}
	if d.m.queue.len() != 1 || d.m.queue.items[0] != strings.Join(keys, "") {
		t.Fatalf("queue = %q, want the draft queued behind the turn", d.m.queue.items)
	}
	// An empty composer's Enter does not answer either.
	d.key("enter")
	if op := answered(d.eng.Ops()); op != nil {
		t.Fatalf("Enter on an empty composer answered the card: %#v", op)
	}
}

// CONTRACT.md §14.6: Tab gives an unfocused card the keys (its edge then ends
// in "· Tab back") and Tab again gives them back; the composer's / menu, when
// open, keeps Tab; while the card has the keys the composer does not.
// README.md "TUI keys": Tab gives an approval card the keys and back
func TestContract14_6TabMovesTheKeysAndTheMenuKeepsIt(t *testing.T) {
	t.Parallel()
	req := engine.ApprovalRequired{ID: "c1", ToolName: "tasks", Input: json.RawMessage(`{}`)}
	d := newDirect(t, 100, 30)
	d.submit("make a task")
	d.events(engine.TurnStarted{TurnID: "t1"}, req)
	d.mustShow(views.UnfocusedHint)
	if !d.m.stack.ComposerHasKeys() {
		t.Fatal("an unfocused card took the keys")
	}
	d.key("tab")
	d.mustShow(views.ApprovalHints + views.FocusedTail)
	if d.m.stack.ComposerHasKeys() {
		t.Fatal("a focused card left the keys (and the cursor) with the composer")
	}
	d.key("tab")
	d.mustShow(views.UnfocusedHint)
	d.typeText("/too")
	if !d.m.menu.Visible() {
		t.Fatal("the / menu did not open under the card")
	}
	d.key("tab")
	if got := d.m.comp.Value(); !strings.HasPrefix(got, "/tools") {
		t.Errorf("Tab with the menu open: composer %q, want the completion", got)
	}
	if f := views.FocusOf(d.m.stack.Top()); f == nil || f.Focused() {
		t.Error("Tab with the menu open moved the keys to the card")
	}
	if op := answered(d.eng.Ops()); op != nil {
		t.Errorf("answered %#v", op)
	}
}

// CONTRACT.md §14.1 and §14.5: the posture chord is routed before the top
// modal, so Shift+Tab cycles the posture while a focused approval card (or
// any other modal) is open, and never answers it.
func TestContract14_1PostureChordBeforeTheTopModal(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 30)
	d.submit("make a task")
	d.clock.Advance(typingWindow)
	d.events(engine.TurnStarted{TurnID: "t1"}, engine.ApprovalRequired{ID: "c1", ToolName: "tasks", Input: json.RawMessage(`{}`)})
	d.mustShow(views.ApprovalHints + views.FocusedTail)
	d.key("shift+tab")
	op, ok := d.eng.lastOp().(engine.ChangeMode)
	if !ok || op.Posture == nil || op.Posture.Chip() != "auto" {
		t.Fatalf("Shift+Tab over a focused card sent %#v, want the posture auto", d.eng.lastOp())
	}
	if d.m.stack.TopApproval() == nil || answered(d.eng.Ops()) != nil {
		t.Fatal("Shift+Tab answered the card")
	}
	d.key("f1") // the help overlay, a modal that is no card
	d.key("shift+tab")
	if op, ok := d.eng.lastOp().(engine.ChangeMode); !ok || op.Posture == nil || op.Posture.Chip() != "Full Access" {
		t.Fatalf("Shift+Tab over the help overlay sent %#v", d.eng.lastOp())
	}
}

// CONTRACT.md §14.6: "Always allow this" (s) saves the card's rule and says in
// the transcript what was saved and where ("Saved permission rule: <rule>
// (<file> rule <n>; …)"), and the rule is in the file.
// README.md "Modes and permissions": s saves the card's rule and prints the rule and the file it went to.
func TestContract14_6SavingARuleSaysWhatWasSaved(t *testing.T) {
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "c1", Name: "Bash", Args: `{"command":"touch saved.txt"}`}),
		fakemodel.Text("Touched."))
	global := filepath.Join(t.TempDir(), permissions.FileName)
	rules, err := permissions.Load(global, "")
	if err != nil {
		t.Fatal(err)
	}
	f := newFlow(t, srv, func(o *engine.Options) { o.Permissions = rules })
	f.typeLine("touch it")
	f.waitFor("approval", "Command: touch saved.txt", views.UnfocusedHint)
	f.tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	f.tm.Type("s")
	f.waitFor("✓ done")
	m := f.final()
	var notice string
	for _, line := range strings.Split(transcriptText(m.tr, 400), "\n") {
		if strings.Contains(line, "Saved permission rule: ") {
			notice = line
		}
	}
	body, err := os.ReadFile(global)
	if err != nil {
		t.Fatal(err)
	}
	rule := regexp.MustCompile(`Saved permission rule: (allow tool=Bash [^(]*) \(`).FindStringSubmatch(notice)
	if rule == nil || !strings.Contains(notice, global+" rule 1;") || !strings.Contains(notice, "/permissions") {
		t.Fatalf("transcript notice %q; want the rule, %s rule 1 and /permissions", notice, global)
	}
	if !strings.Contains(string(body), "touch saved.txt") || len(rules.Rules()) != 1 {
		t.Errorf("%s holds %q; rules %v", global, body, rules.Rules())
	}
}

// CONTRACT.md §14.5: a mode, model or effort change while a turn runs is
// refused with "<Setting> is locked while a turn is running — press Esc to
// interrupt first"; CONTRACT.md §14.7: route changes (/provider, /model) are
// refused while a turn runs.
func TestContract14_5SettingsLockedWhileATurnRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ line, setting string }{
		{"/mode plan", "Mode"}, {"/model deepseek-v4-flash", "Model"}, {"/effort high", "Effort"},
		{"/provider openai", "Provider"},
	} {
		t.Run(tc.setting, func(t *testing.T) {
			t.Parallel()
			routes := &fakeRoutes{}
			d := newDirect(t, 120, 30, func(o *Options) { o.Routes = routes })
			d.submit("hello")
			d.events(engine.TurnStarted{TurnID: "t1"})
			sent := len(d.eng.Ops())
			d.submit(tc.line)
			d.mustShow(tc.setting + " is locked while a turn is running — press Esc to interrupt first")
			if ops := d.eng.Ops()[sent:]; len(ops) != 0 || len(routes.switched) != 0 {
				t.Errorf("%s while busy sent %#v, switched %v", tc.line, ops, routes.switched)
			}
			if d.m.queue.len() != 0 {
				t.Errorf("%s was queued: %q", tc.line, d.m.queue.items)
			}
		})
	}
}

// CONTRACT.md §14.7: a leading / dispatches by the first word, lower-cased,
// and aliases resolve to the primary command.
func TestContract14_7DispatchLowerCasesAndResolvesAliases(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"/TOOLS", "/Tool-Studio", "/tools text"} {
		d := newDirect(t, 120, 30)
		d.submit(line)
		d.mustShow(toolsUnavailable)
	}
	for _, c := range slashCommands {
		for _, a := range c.Aliases {
			if got, ok := newDirect(t, 80, 24).m.table.Registry().Lookup(a); !ok || got.Name != c.Name {
				t.Errorf("alias /%s resolves to %q, want /%s", a, got.Name, c.Name)
			}
		}
	}
	inv, _ := commands.Parse("  /HeLp   tools  ")
	if inv.Name != "help" || inv.Arg != "tools" {
		t.Errorf("parse = %#v", inv)
	}
}

// CONTRACT.md §14.7, §14.9 and §14.10: the usages these sections give are the
// command table's, and every built-in command is in the table that the / menu and
// /help read (README's list of them is held to the same table by
// TestREADMESlashCommandsAreTheCommandTable).
func TestContract14_7ListedCommandsAreTheTable(t *testing.T) {
	t.Parallel()
	usages := map[string]string{
		"provider": "[id [model]]",
		"model":    "[name|refresh]",
		"mcp":      "[list|reload [server]|login <server>|trust]",
		"jobs":     "[list|show <id>|poll <id>|wait <id>|stdin <id> <input>|close-stdin <id>|cancel <id>|cancel-all]",
		"tools":    "[text|json]",
	}
	reg := newDirect(t, 80, 24).m.table.Registry()
	for name, usage := range usages {
		c, ok := reg.Lookup(name)
		if !ok || c.Usage != usage {
			t.Errorf("/%s usage %q, want %q", name, c.Usage, usage)
		}
	}
	if _, ok := reg.Lookup("sessions"); !ok {
		t.Error("/sessions is not in the table")
	}
	menu := reg.Complete("")
	if len(menu) != len(slashCommands) {
		t.Errorf("the / menu offers %d commands, the table has %d", len(menu), len(slashCommands))
	}
	d := newDirect(t, 160, 200)
	d.submit("/help")
	for _, c := range slashCommands {
		d.mustShow("/" + c.Name)
	}
}

// CONTRACT.md §14.7: /mcp reload's alias reconnect restarts the servers and
// lists them again; login names `codewhale mcp login <server>`.
func TestContract14_7MCPReconnectAndLogin(t *testing.T) {
	t.Parallel()
	p := contractPool(t, map[string]any{"broken": map[string]any{"command": filepath.Join(t.TempDir(), "missing")}}, mcp.Project{})
	d := newDirect(t, 160, 30, func(o *Options) { o.MCP = p })
	d.submit("/mcp login broken")
	d.mustShow("codewhale mcp login broken")
	runFor[services.NoteMsg](t, d, d.submit("/mcp reconnect broken"))
	d.mustShow("broken  stdio  failed", "/mcp reload [server] reconnects")
}

// CONTRACT.md §14.2: the phase strip says what the session does: idle,
// drafting… while the composer holds text, working…, reasoning… and using
// tool… while a turn runs, waiting on you… while a card waits, then done or
// failed.
func TestContract14_2PhaseStrip(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 30)
	d.clock.Advance(typingWindow)
	strip := func(want string) {
		t.Helper()
		for _, row := range strings.Split(d.screen(), "\n") {
			if strings.HasPrefix(row, "▌") {
				if !strings.Contains(row, want) {
					t.Fatalf("phase strip %q, want %q", row, want)
				}
				return
			}
		}
		t.Fatalf("no phase strip:\n%s", d.screen())
	}
	strip("· idle")
	d.typeText("fix")
	strip("› drafting…")
	d.key("enter")
	d.events(engine.TurnStarted{TurnID: "t1"})
	strip("working…")
	d.events(engine.ThinkingStarted{}, engine.ThinkingDelta{Content: "hmm"})
	strip("reasoning…")
	d.events(engine.ThinkingComplete{}, engine.ToolCallStarted{ID: "c1", Name: "Bash", Input: json.RawMessage(`{"command":"make"}`)})
	strip("using tool…")
	d.clock.Advance(typingWindow)
	d.events(engine.ApprovalRequired{ID: "c1", ToolName: "Bash", Input: json.RawMessage(`{"command":"make"}`)})
	strip("◆ waiting on you…")
	d.key("y")
	d.events(engine.ToolCallComplete{ID: "c1", Name: "Bash"}, engine.TurnComplete{TurnID: "t1", Status: engine.TurnCompleted})
	strip("✓ done")
	d.submit("again")
	d.events(engine.TurnStarted{TurnID: "t2"}, engine.TurnComplete{TurnID: "t2", Status: engine.TurnFailed, Error: "boom"})
	strip("✕ failed")
}

// CONTRACT.md §14.6: Ctrl+C clears a draft (kept in ↑ history), else cancels
// the running turn, else arms quitting; Ctrl+D quits only on an empty
// composer with no turn running.
// README.md "TUI keys": Ctrl+D quits only on an empty idle composer: never with a draft or during a turn
func TestContract14_6CtrlCAndCtrlD(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.typeText("a draft")
	d.key("ctrl+d")
	if d.m.Quitting() || d.m.comp.Value() != "a draft" {
		t.Fatalf("Ctrl+D with a draft: quitting %v, composer %q", d.m.Quitting(), d.m.comp.Value())
	}
	d.key("ctrl+c")
	if d.m.comp.Value() != "" {
		t.Fatalf("Ctrl+C left %q", d.m.comp.Value())
	}
	d.key("up")
	if d.m.comp.Value() != "a draft" {
		t.Fatalf("↑ after Ctrl+C = %q, want the draft back", d.m.comp.Value())
	}
	d.key("ctrl+c")
	d.submit("hello")
	d.events(engine.TurnStarted{TurnID: "t1"})
	d.key("ctrl+d")
	if d.m.Quitting() {
		t.Fatal("Ctrl+D quit while a turn ran")
	}
	d.key("ctrl+c")
	if d.eng.cancels != 1 {
		t.Fatalf("Ctrl+C during a turn: %d cancels", d.eng.cancels)
	}
	d.events(engine.TurnComplete{TurnID: "t1", Status: engine.TurnInterrupted})
	d.m.Update(tea.KeyMsg{Type: tea.KeyCtrlU}) // the interrupted message came back into the composer
	d.key("ctrl+d")
	if !d.m.Quitting() {
		t.Errorf("Ctrl+D on an empty idle composer did not quit: composer %q, busy %v, running %d", d.m.comp.Value(), d.m.turn.busy, d.m.turn.running)
	}
}

// CONTRACT.md §14.6 and §15.8: a turn the user cancels in the TUI ends as
// interrupted, not as an error: no error line, no failed mark.
func TestContract15CancelledTurnIsNotAnError(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 24)
	d.submit("write a poem")
	d.events(engine.TurnStarted{TurnID: "t1"}, engine.MessageStarted{}, engine.MessageDelta{Content: "Roses are"})
	d.key("esc")
	d.events(engine.MessageComplete{}, engine.Status{Message: "Request cancelled"},
		engine.TurnComplete{TurnID: "t1", Status: engine.TurnInterrupted})
	d.mustShow("Roses are", "⎿ interrupted")
	d.mustNotShow("Error", "✕ failed")
	if d.m.turn.phase == phaseFailed {
		t.Error("a cancelled turn is marked failed")
	}
}

// CONTRACT.md §14.4 and §15.20: scrolled up, new output shows the "new
// output below" marker; bare End stays a composer key (the view stays
// where it is) and Ctrl+End goes back to the bottom and follows again.
// README.md "TUI keys": bare End belongs to the composer
func TestContract15EndStaysAComposerKey(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 80, 16)
	long := strings.Repeat("a paragraph of the reply\n\n", 40)
	d.submit("q")
	d.events(engine.TurnStarted{TurnID: "t1"}, engine.MessageStarted{}, engine.MessageDelta{Content: long},
		engine.MessageComplete{})
	d.key("pgup")
	if d.m.tr.Following() {
		t.Fatal("PgUp did not scroll up")
	}
	d.events(engine.MessageStarted{}, engine.MessageDelta{Content: "fresh output"})
	d.mustShow("new output below")
	d.typeText("draft")
	d.key("end")
	if d.m.tr.Following() || !d.m.tr.NewBelow() {
		t.Error("bare End moved the transcript")
	}
	if d.m.comp.Value() != "draft" {
		t.Errorf("composer = %q after End", d.m.comp.Value())
	}
	d.key("ctrl+end")
	if !d.m.tr.Following() {
		t.Error("Ctrl+End did not return to the bottom")
	}
	d.mustShow("fresh output")
	d.mustNotShow("new output below")
}
