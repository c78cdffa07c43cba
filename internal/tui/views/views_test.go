package views_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/views"
)

func key(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "ctrl+d":
		return tea.KeyMsg{Type: tea.KeyCtrlD}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "ctrl+u":
		return tea.KeyMsg{Type: tea.KeyCtrlU}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "alt+v":
		return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("v"), Alt: true}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

func typeKeys(v views.View, keys ...string) views.Action {
	var a views.Action
	for _, k := range keys {
		a = v.Update(key(k))
	}
	return a
}

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// CONTRACT.md §14.8: G then k scrolls up one line at once.
func TestPagerGeometryGThenKScrollsUpOneLineAtOnce(t *testing.T) {
	t.Parallel()
	p := views.NewPager(theme.Plain(), "T", numbered(100))
	p.View(80, 22) // 20 body rows
	typeKeys(p, "G")
	if p.Scroll() != 80 {
		t.Fatalf("G: scroll = %d, want max_scroll 80", p.Scroll())
	}
	typeKeys(p, "k")
	if p.Scroll() != 79 {
		t.Errorf("k after G: scroll = %d, want 79", p.Scroll())
	}
	typeKeys(p, "g", "x", "g")
	if p.Scroll() != 79 {
		t.Errorf("g x g must not jump: scroll = %d", p.Scroll())
	}
	typeKeys(p, "g", "g")
	if p.Scroll() != 0 {
		t.Errorf("g g: scroll = %d", p.Scroll())
	}
	typeKeys(p, "ctrl+d")
	if p.Scroll() != 10 {
		t.Errorf("Ctrl+D: scroll = %d, want half a page (10)", p.Scroll())
	}
	typeKeys(p, " ")
	if p.Scroll() != 30 {
		t.Errorf("Space: scroll = %d, want 30", p.Scroll())
	}
	if a := typeKeys(p, "q"); a.Kind != views.Close {
		t.Errorf("q = %+v", a)
	}
}

// CONTRACT.md §14.8: / search jumps to the first match and shows match <i>/<N>.
func TestPagerSearchJumpsToTheFirstMatchAndCycles(t *testing.T) {
	t.Parallel()
	p := views.NewPager(theme.Plain(), "T", numbered(100))
	p.View(80, 22)
	typeKeys(p, "/", "L", "I", "N", "E", " ", "7", "enter")
	// "line 7", "line 70".."line 79": 11 matches, case-insensitive.
	out := p.View(80, 22)
	if !strings.Contains(out, "match 1/11 (n/N)") {
		t.Fatalf("status row missing:\n%s", out)
	}
	if p.Scroll() != 6 {
		t.Errorf("first match at line index 6, scroll = %d", p.Scroll())
	}
	typeKeys(p, "N")
	if out := p.View(80, 22); !strings.Contains(out, "match 11/11 (n/N)") {
		t.Errorf("N wraps to the last match:\n%s", out)
	}
	typeKeys(p, "/", "esc")
	if out := p.View(80, 22); strings.Contains(out, "match ") {
		t.Errorf("Esc in the prompt clears matches:\n%s", out)
	}
}

// CONTRACT.md §14.8: c copies the unwrapped source and wrapping keeps leading indentation.
func TestPagerCopiesTheUnwrappedSourceAndKeepsIndentation(t *testing.T) {
	t.Parallel()
	body := "{\n  \"key\": \"" + strings.Repeat("word ", 30) + "\"\n}\x1b[31m"
	p := views.NewPager(theme.Plain(), "JSON", body)
	p.View(40, 20)
	for _, l := range p.Lines()[1:3] {
		if !strings.HasPrefix(l, "  ") {
			t.Errorf("continuation row lost its indentation: %q", l)
		}
	}
	a := typeKeys(p, "c")
	cp, ok := a.Event.(views.Copy)
	if a.Kind != views.Emit || !ok || cp.Label != "Pager content" || cp.Text != strings.TrimSuffix(body, "\x1b[31m") {
		t.Errorf("copy = %+v", a)
	}
}

func TestPagerGolden(t *testing.T) {
	t.Parallel()
	p := views.NewPager(theme.Plain(), "Bash Job shell_1234abcd", "Job: shell_1234abcd\nStatus: running\n\nSTDOUT (12 bytes):\nhello 日本語 👍\n"+numbered(30))
	typeKeys(p, "/", "l", "i", "n", "e", " ", "2", "enter")
	golden.RequireEqual(t, []byte(p.View(60, 16)))
}

func approvalReq() engine.ApprovalRequired {
	return engine.ApprovalRequired{ID: "call_1", ToolName: "File", Description: "File edit · cmd/root.go",
		Input:         json.RawMessage(`{"action":"edit","path":"cmd/root.go","search":"old()","replace":"new()"}`),
		IntentSummary: "I'll register the flag on the root command and thread it into the logger."}
}

func TestApprovalCardDeniesByDefault(t *testing.T) {
	t.Parallel()
	a := views.NewApproval(theme.Plain(), approvalReq(), true)
	if a.Selected() != views.Deny {
		t.Fatalf("initial selection = %v, want Deny", a.Selected())
	}
	act := typeKeys(a, "enter")
	if d, ok := act.Event.(views.Decision); act.Kind != views.EmitAndClose || !ok || d.Choice != views.Deny || d.ID != "call_1" {
		t.Errorf("reflexive Enter = %+v, want Deny", act)
	}
}

func TestApprovalCardKeys(t *testing.T) {
	t.Parallel()
	cases := []struct {
		keys []string
		want views.Choice
	}{
		{[]string{"y"}, views.AllowOnce},
		{[]string{"1"}, views.AllowOnce},
		{[]string{"a"}, views.AllowSession},
		{[]string{"n"}, views.Deny},
		{[]string{"d"}, views.Deny},
		{[]string{"esc"}, views.Abort},
		{[]string{"up", "up", "enter"}, views.AllowOnce},
		{[]string{"down", "enter"}, views.Abort},
	}
	for _, tc := range cases {
		a := views.NewApproval(theme.Plain(), approvalReq(), true)
		act := typeKeys(a, tc.keys...)
		if d, _ := act.Event.(views.Decision); d.Choice != tc.want || act.Kind != views.EmitAndClose {
			t.Errorf("%v = %+v, want %v", tc.keys, act, tc.want)
		}
	}
	a := views.NewApproval(theme.Plain(), approvalReq(), true)
	act := typeKeys(a, "alt+v")
	if op, ok := act.Event.(views.OpenPager); !ok || op.Title != "Tool Params: File" || !strings.Contains(op.Body, `"path": "cmd/root.go"`) {
		t.Errorf("Alt+V = %+v", act)
	}
}

func TestApprovalCardGolden(t *testing.T) {
	t.Parallel()
	a := views.NewApproval(theme.Plain(), approvalReq(), false)
	if out := a.View(80, 20); !strings.Contains(out, views.UnfocusedHint) || strings.Contains(out, views.ApprovalHints) {
		t.Errorf("without focus the answer keys are not offered:\n%s", out)
	}
	typeKeys(a, "tab")
	golden.RequireEqual(t, []byte(a.View(80, 20)))
}

func TestPickerPicksTheSelectedValue(t *testing.T) {
	t.Parallel()
	items := []views.Item{{Label: "Act", Value: "act"}, {Label: "Plan", Value: "plan"}, {Label: "Operate", Value: "operate"}}
	p := views.NewPicker(theme.Plain(), "mode", "Mode", items, "plan")
	act := typeKeys(p, "down", "enter")
	if pk, ok := act.Event.(views.Picked); !ok || pk.Picker != "mode" || pk.Value != "operate" {
		t.Errorf("picked = %+v", act)
	}
	if act := typeKeys(views.NewPicker(theme.Plain(), "m", "M", items, ""), "esc"); act.Kind != views.Close {
		t.Errorf("esc = %+v", act)
	}
}

func TestHelpFiltersAsYouType(t *testing.T) {
	t.Parallel()
	h := views.NewHelp(theme.Plain(), []views.HelpEntry{
		{Section: "Slash commands", Key: "/tools", Text: "snapshot pager"},
		{Section: "Keybindings", Key: "Shift+Tab", Text: "cycle permissions"},
	})
	out := h.View(80, 20)
	if !strings.Contains(out, "Help") || !strings.Contains(out, "Concepts, commands, and keybindings") {
		t.Fatalf("header missing:\n%s", out)
	}
	typeKeys(h, "p", "e", "r", "m")
	out = h.View(80, 20)
	if strings.Contains(out, "/tools") || !strings.Contains(out, "Shift+Tab") || !strings.Contains(out, "Filter: perm") {
		t.Errorf("filtered:\n%s", out)
	}
	typeKeys(h, "z", "z")
	if out := h.View(80, 20); !strings.Contains(out, "  No matches.") {
		t.Errorf("no matches:\n%s", out)
	}
}
