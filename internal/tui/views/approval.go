package views

import (
	"encoding/json"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

// Choice is an answer to an approval card.
type Choice int

const (
	AllowOnce Choice = iota
	AllowSession
	Deny
	Abort
)

// ApprovalHints is the card's bottom edge.
const ApprovalHints = "y allow · a session · n deny · Esc abort · Alt+V params"

// approvalOptions are the card's rows in order (tui.md §6.5). The "always
// allow this exact rule" row is absent: no request is eligible while
// permission rules cannot be saved.
var approvalOptions = []string{"Allow once", "Allow for this session (this kind)", "Deny this call", "Abort the turn"}

// KeyGuard is how long after a card opens keys are ignored, so keys typed
// for the composer just before it appeared are never taken as the answer.
const KeyGuard = 250 * time.Millisecond

// Decision is the card's answer, for the root model to send.
type Decision struct {
	ID     string
	Choice Choice
}

// Approval is the approval card. Deny is selected when it opens, so a
// reflexive Enter never authorises.
type Approval struct {
	Req       engine.ApprovalRequired
	theme     *theme.Theme
	now       func() time.Time
	opened    time.Time
	sel       int
	collapsed bool
}

// NewApproval opens a card for req at now().
func NewApproval(t *theme.Theme, req engine.ApprovalRequired, now func() time.Time) *Approval {
	return &Approval{Req: req, theme: t, now: now, opened: now(), sel: int(Deny)}
}

// FullScreen implements View.
func (a *Approval) FullScreen() bool { return false }

// Selected is the highlighted option.
func (a *Approval) Selected() Choice { return Choice(a.sel) }

// Update implements View.
func (a *Approval) Update(k tea.KeyMsg) Action {
	if k.String() == "ctrl+c" {
		return a.decide(Abort)
	}
	if a.guarded() {
		return none()
	}
	switch k.String() {
	case "y", "Y", "1":
		return a.decide(AllowOnce)
	case "a", "A", "2":
		return a.decide(AllowSession)
	case "n", "N", "d", "D", "3":
		return a.decide(Deny)
	case "esc":
		return a.decide(Abort)
	case "up", "k":
		a.sel = max(a.sel-1, 0)
	case "down", "j":
		a.sel = min(a.sel+1, len(approvalOptions)-1)
	case "enter":
		return a.decide(Choice(a.sel))
	case "tab":
		a.collapsed = !a.collapsed
	case "alt+v":
		return emit(OpenPager{Title: "Tool Params: " + a.Req.ToolName, Body: a.paramsText()})
	}
	return none()
}

// Wheel implements Wheeler: the wheel moves the selection.
func (a *Approval) Wheel(delta int) Action {
	a.sel = min(max(a.sel+delta, 0), len(approvalOptions)-1)
	return none()
}

func (a *Approval) decide(c Choice) Action {
	return emitAndClose(Decision{ID: a.Req.ID, Choice: c})
}

// paramsText is the Alt+V pager body: what the call is, then its input as
// pretty JSON.
func (a *Approval) paramsText() string {
	var b strings.Builder
	b.WriteString("Tool: " + a.Req.ToolName + "\n")
	if a.Req.Description != "" {
		b.WriteString("About: " + a.Req.Description + "\n")
	}
	if a.Req.IntentSummary != "" {
		b.WriteString("Intent: " + a.Req.IntentSummary + "\n")
	}
	b.WriteString("\nInput:\n")
	b.WriteString(PrettyJSON(a.Req.Input))
	return b.String()
}

// PrettyJSON indents raw JSON; invalid JSON is returned as it is.
func PrettyJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// facts are the labelled key facts of the call.
func (a *Approval) facts() []string {
	var m map[string]any
	_ = json.Unmarshal(a.Req.Input, &m)
	str := func(k string) string { s, _ := m[k].(string); return s }
	var out []string
	add := func(label, v string) {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, label+": "+termtext.OneLine(termtext.Sanitize(v)))
		}
	}
	add("Action", str("action"))
	add("Command", str("command"))
	add("Dir", str("cwd"))
	if a.Req.ToolName == "File" {
		add("File", str("path"))
	} else {
		add("Path", str("path"))
	}
	add("Target", str("agent_id")+str("task_id"))
	add("Type", str("type")+str("agent_type"))
	add("Prompt", str("prompt"))
	if s := str("search"); s != "" {
		add("Replace this", s)
		add("With this", str("replace"))
	}
	return out
}

// View implements View.
func (a *Approval) View(w, _ int) string {
	inner := max(w-4, 1)
	edge := func(s string) string { return a.theme.Warning.Render(s) }
	head := a.theme.Bold.Render(a.Req.ToolName) + " · " + termtext.Sanitize(strings.TrimPrefix(a.Req.Description, a.Req.ToolName+" "))
	if a.collapsed {
		return edge("◆ ") + termtext.Truncate(head+a.theme.Dim.Render("  (Tab to expand · "+ApprovalHints+")"), w-2, "…")
	}
	rows := []string{termtext.Truncate(head, inner, "…")}
	for _, f := range a.facts() {
		rows = append(rows, termtext.Truncate(f, inner, "…"))
	}
	if in := strings.TrimSpace(termtext.Sanitize(a.Req.IntentSummary)); in != "" {
		wrapped := termtext.WrapPlain("Intent: "+termtext.OneLine(in), inner)
		if len(wrapped) > 3 {
			wrapped = append(wrapped[:2], termtext.Truncate(wrapped[2], inner-1, "")+"…")
		}
		rows = append(rows, wrapped...)
	}
	for i, o := range approvalOptions {
		if i == a.sel {
			rows = append(rows, a.theme.Selected.Render("▸ "+o))
		} else {
			rows = append(rows, "  "+o)
		}
	}
	hints := ApprovalHints
	if a.guarded() {
		hints = "read the request first…" // keys are ignored until the guard passes
	}
	return box(rows, w, "approval", hints, edge)
}

// guarded reports whether the card still ignores keys.
func (a *Approval) guarded() bool { return a.now().Sub(a.opened) < KeyGuard }
