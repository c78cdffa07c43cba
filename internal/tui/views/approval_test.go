package views_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/views"
)

func request(tool, desc string, in map[string]any) engine.ApprovalRequired {
	raw, _ := json.Marshal(in)
	return engine.ApprovalRequired{ID: "call_1", ToolName: tool, Description: desc, Input: raw}
}

func withAuthority(r engine.ApprovalRequired, a map[string]any) engine.ApprovalRequired {
	r.Authority = a
	return r
}

func longCommand() string {
	return "find . -name '*.go' -not -path './vendor/*' -print0 | xargs -0 grep -l 'TODO' | sort | uniq -c | " +
		"sort -rn | head -50 > todo-report.txt && git add todo-report.txt && git commit -m 'report' && curl -s -X POST " +
		"https://example.invalid/upload --data-binary @todo-report.txt; rm -rf ./build"
}

// The card shows everything a call grants (issue 11 §5): the whole command
// with its newlines, the full edit text, the size and first lines of a
// write and every authority flag of a task.
func TestApprovalCardShowsEverythingItGrants(t *testing.T) {
	t.Parallel()
	content := ""
	for i := 1; i <= 40; i++ {
		content += "line " + itoa(i) + " of the new file\n"
	}
	cases := []struct {
		name string
		req  engine.ApprovalRequired
		want []string // substrings that must be visible
	}{
		{"multi_line_command", request("Bash", "Bash · echo ok …", map[string]any{"command": "echo ok\ntouch X\nrm -rf ./out"}),
			[]string{"Command (3 lines):", "1 │ echo ok", "2 │ touch X", "3 │ rm -rf ./out"}},
		{"long_command", request("Bash", "Bash · find . -name …", map[string]any{"command": longCommand(), "cwd": "sub"}),
			[]string{"rm -rf ./build", "Dir: sub"}},
		{"edit", request("File", "File edit · cmd/root.go", map[string]any{"action": "edit", "path": "cmd/root.go",
			"search": "func old() {\n\treturn\n}", "replace": "func new() {\n\tos.RemoveAll(\"/\")\n}"}),
			[]string{"Replace this (3 lines):", "With this (3 lines):", `os.RemoveAll("/")`}},
		{"write", request("File", "File write · notes/plan.md", map[string]any{"action": "write", "path": "notes/plan.md", "content": content}),
			[]string{"Write: 951 bytes · 40 lines", "1 │ line 1 of the new file", "10 │ line 10", "… 30 more lines"}},
		{"tasks_create", request("tasks", "tasks create · write docs", map[string]any{"action": "create", "prompt": "write the docs\nthen push them",
			"auto_approve": true, "trust_mode": true, "allow_shell": true, "model": "deepseek-v4-flash", "mode": "operate"}),
			[]string{"Auto-approve: yes", "Trust mode: yes", "Allow shell: yes", "Model: deepseek-v4-flash", "Mode: operate", "2 │ then push them"}},
		{"tasks_create_defaults", request("tasks", "tasks create · x", map[string]any{"action": "create", "prompt": "x"}),
			[]string{"Auto-approve: no", "Trust mode: no", "Allow shell: no", "Model: the session's model", "Mode: agent (default)"}},
		{"explicit_protected_write", explicit(request("File", "File write · .git/config", map[string]any{"action": "write",
			"path": ".git/config", "content": "[core]\n\tfsmonitor = ./x.sh\n"}), "writes .git/config, which decides what git runs"),
			[]string{"Needs your explicit approval: writes .git/config, which decides", "what git runs", "fsmonitor = ./x.sh",
				views.ExplicitHints}},
		{"automation_update_lowered", withAuthority(request("automation", "automation update · cp ~/.ssh/id_rsa .",
			map[string]any{"action": "update", "automation_id": "auto_0000beef", "prompt": "cp ~/.ssh/id_rsa ."}),
			map[string]any{"runs_with": "Ask — it runs headless, so what needs approval is refused", "auto_approve": false,
				"trust_mode": false, "allow_shell": false, "lowered_from": "Full Access — its tool calls run without asking anyone"}),
			[]string{"Action: update", "Target: auto_0000beef", "1 │ cp ~/.ssh/id_rsa .", "Runs with: Ask", "Lowered from: Full Access",
				"Auto-approve: no", "Trust mode: no", "Allow shell: no"}},
		{"automation_create_full", withAuthority(request("automation_create", "automation create · tidy",
			map[string]any{"action": "create", "prompt": "tidy", "schedule": "@daily", "auto_approve": true}),
			map[string]any{"runs_with": "Full Access — its tool calls run without asking anyone", "auto_approve": true,
				"trust_mode": true, "allow_shell": true}),
			[]string{"Schedule: @daily", "Runs with: Full Access", "Auto-approve: yes — its runs' tool calls run", "Allow shell: yes"}},
		{"unknown_arguments", request("mcp_srv_tool", "mcp_srv_tool", map[string]any{"url": "https://x.invalid", "force": true}),
			[]string{"force: true", "url: https://x.invalid"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := views.NewApproval(theme.Plain(), tc.req, true)
			out := a.View(72, 40)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("card lacks %q:\n%s", w, out)
				}
			}
			for _, row := range strings.Split(out, "\n") {
				if termtext.Width(row) != 72 {
					t.Errorf("row is %d cells wide, want 72: %q", termtext.Width(row), row)
				}
			}
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// A long command is wrapped, never cut: every word of it is on the card.
func TestApprovalCardNeverCutsACommand(t *testing.T) {
	t.Parallel()
	a := views.NewApproval(theme.Plain(), request("Bash", "Bash", map[string]any{"command": longCommand()}), true)
	flat := termtext.OneLine(strings.NewReplacer("│", " ").Replace(a.View(50, 60)))
	for _, word := range strings.Fields(longCommand()) {
		if !strings.Contains(flat, word) {
			t.Errorf("the card dropped %q:\n%s", word, a.View(50, 60))
		}
	}
}

// A body taller than the card's room scrolls with PgDn/PgUp and says where
// it is.
// README.md "Modes and permissions": PgUp/PgDn scroll a long card.
func TestApprovalCardBodyScrolls(t *testing.T) {
	t.Parallel()
	var script []string
	for i := 1; i <= 30; i++ {
		script = append(script, "echo step-"+itoa(i))
	}
	a := views.NewApproval(theme.Plain(), request("Bash", "Bash", map[string]any{"command": strings.Join(script, "\n")}), true)
	out := a.View(60, 16)
	if strings.Contains(out, "step-30") || !strings.Contains(out, "PgDn more") {
		t.Fatalf("first page:\n%s", out)
	}
	for i := 0; i < 10 && !strings.Contains(a.View(60, 16), "step-30"); i++ {
		typeKeys(a, "pgdown")
	}
	out = a.View(60, 16)
	if !strings.Contains(out, "30 │ echo step-30") || !strings.Contains(out, "PgUp back") {
		t.Fatalf("PgDn never reached the end:\n%s", out)
	}
	if rows := strings.Count(out, "\n") + 1; rows > 16 {
		t.Errorf("the card is %d rows high in a 16-row area", rows)
	}
}

// The focus rule (issue 23 §7): a card that opened while the person typed
// passes every key on, whatever the pauses between them, until Tab; a
// paste never answers and gives the keys back to the composer.
// README.md "Modes and permissions": a card opened while typing says `Tab to answer · typing goes to the composer`, passes every key on until Tab, Tab again gives the keys back, and a paste never answers.
func TestUnfocusedApprovalTakesOnlyTab(t *testing.T) {
	t.Parallel()
	req := explicit(approvalReq(), "force-pushes main")
	req.SaveRule = `allow tool=Bash command="git push" command_exact`
	a := views.NewApproval(theme.Plain(), req, false)
	for _, k := range []string{"y", "o", "u", " ", "s", "a", "1", "2", "n", "enter", "up", "j", "k", "down"} {
		if act := typeKeys(a, k); act.Kind != views.Pass {
			t.Fatalf("%s on an unfocused card was taken: %+v", k, act)
		}
	}
	if out := a.View(80, 20); !strings.Contains(out, views.UnfocusedHint) || strings.Contains(out, views.ExplicitHints) {
		t.Errorf("an unfocused card does not say how to focus it:\n%s", out)
	}
	if act := typeKeys(a, "tab"); act.Kind != views.None || !a.Focus().Focused() {
		t.Fatalf("Tab = %+v, focused %v", act, a.Focus().Focused())
	}
	if !strings.Contains(a.View(80, 20), views.ExplicitHints+views.FocusedTail) {
		t.Errorf("a focused card does not offer its answers:\n%s", a.View(80, 20))
	}
	if act := typeKeys(a, "tab"); act.Kind != views.None || a.Focus().Focused() {
		t.Fatalf("Tab again = %+v, focused %v", act, a.Focus().Focused())
	}
	typeKeys(a, "tab")
	paste := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y"), Paste: true}
	if act := a.Update(paste); act.Kind != views.Pass || a.Focus().Focused() {
		t.Errorf("a paste on a focused card = %+v, focused %v", act, a.Focus().Focused())
	}
	typeKeys(a, "tab")
	if act := typeKeys(a, "y"); act.Kind != views.EmitAndClose || act.Event.(views.Decision).Choice != views.AllowOnce {
		t.Errorf("y after Tab = %+v", act)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func explicit(r engine.ApprovalRequired, reason string) engine.ApprovalRequired {
	r.Reason, r.ForcePrompt = reason, true
	return r
}

// A call that needs an explicit approval offers no "allow for the
// session": neither the row nor its key.
func TestExplicitApprovalHasNoSessionGrant(t *testing.T) {
	t.Parallel()
	a := views.NewApproval(theme.Plain(), explicit(approvalReq(), "protected path"), true)
	if out := a.View(80, 30); strings.Contains(out, "Allow for this session") || !strings.Contains(out, "▸ Deny this call") {
		t.Errorf("card:\n%s", out)
	}
	if act := typeKeys(a, "a"); act.Kind != views.None {
		t.Errorf("a on an explicit card = %+v", act)
	}
	if act := typeKeys(a, "up", "enter"); act.Event.(views.Decision).Choice != views.AllowOnce {
		t.Errorf("up, enter = %+v", act)
	}
}

// A card whose call has an exact rule to save offers "Always allow this"
// and shows the rule; s answers it, and a card without one ignores s.
func TestApprovalCanSaveItsRule(t *testing.T) {
	t.Parallel()
	req := approvalReq()
	if a := views.NewApproval(theme.Plain(), req, true); typeKeys(a, "s").Kind == views.EmitAndClose {
		t.Error("s answered a card with no rule to save")
	}
	req.SaveRule = `allow tool=Bash tool_action="run" command="make lint" command_exact`
	a := views.NewApproval(theme.Plain(), req, true)
	if out := a.View(80, 30); !strings.Contains(out, "Always allow this (save rule)") || !strings.Contains(out, "s always") {
		t.Errorf("card:\n%s", out)
	}
	// The rule s would save is on the card, whole (wrapped, never cut).
	if out := a.View(40, 30); !strings.Contains(strings.Join(strings.Fields(stripBox(out)), " "),
		`s saves: allow tool=Bash tool_action="run" command="make lint" command_exact`) {
		t.Errorf("card does not show the rule s saves:\n%s", out)
	}
	if out := views.NewApproval(theme.Plain(), explicit(req, "protected path"), true).View(80, 30); strings.Contains(out, "s saves") {
		t.Errorf("an explicit card, which cannot save, shows a rule:\n%s", out)
	}
	if act := typeKeys(a, "s"); act.Kind != views.EmitAndClose || act.Event.(views.Decision).Choice != views.AllowAlways {
		t.Errorf("s = %+v", act)
	}
}

// A focusable question (what /init asks when its survey turn ends) that
// opened while the person typed passes every key on, its answer numbers
// and q included, until Tab; one without the rule answers at once.
func TestUnfocusedQuestionTakesOnlyTab(t *testing.T) {
	t.Parallel()
	items := []views.Item{{Label: "Write it", Value: "write"}, {Label: "Show", Value: "show"}}
	q := views.NewQuestion(theme.Plain(), "init", "Write AGENTS.md?", []string{"+rule"}, items, "show").Focusable(false)
	for i, k := range []string{"1", "q", "enter", "2", "j", "1"} {
		if act := typeKeys(q, k); act.Kind != views.Pass {
			t.Fatalf("key %d (%s) was taken: %+v", i, k, act)
		}
	}
	if !strings.Contains(q.View(80, 20), views.UnfocusedHint) {
		t.Errorf("an unfocused question does not say how to focus it:\n%s", q.View(80, 20))
	}
	typeKeys(q, "tab")
	if act := typeKeys(q, "1"); act.Kind != views.EmitAndClose || act.Event.(views.Picked).Value != "write" {
		t.Errorf("1 after Tab = %+v", act)
	}
	plain := views.NewQuestion(theme.Plain(), "undo", "Undo?", nil, items, "show")
	if act := typeKeys(plain, "1"); act.Kind != views.EmitAndClose {
		t.Errorf("a plain question's 1 = %+v", act)
	}
}

// A question's body (a diff of model text, file paths) is drawn safely:
// escape sequences removed, tabs expanded so the box keeps its edges.
func TestQuestionBodyIsSanitised(t *testing.T) {
	t.Parallel()
	q := views.NewQuestion(theme.Plain(), "init", "Write AGENTS.md?", []string{"+\tgo test\x1b[2J ./..."},
		[]views.Item{{Label: "Write it", Value: "write"}}, "")
	out := q.View(60, 10)
	if strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\t") || !strings.Contains(out, "go test ./...") {
		t.Errorf("question:\n%q", out)
	}
}

// stripBox is a card's text without its frame: the border characters
// and the padding that wrapping puts at each row's ends.
func stripBox(out string) string {
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		b.WriteString(strings.Trim(line, "│╭╮╰╯─ ") + " ")
	}
	return b.String()
}
