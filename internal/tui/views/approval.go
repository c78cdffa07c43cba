package views

import (
	"encoding/json"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/approvalcard"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

// Choice is an answer to an approval card; the choices and their words
// are internal/approvalcard's, which the ACP agent offers too.
type Choice = approvalcard.Choice

const (
	AllowOnce    = approvalcard.AllowOnce
	AllowSession = approvalcard.AllowSession
	Deny         = approvalcard.Deny
	Abort        = approvalcard.Abort
	AllowAlways  = approvalcard.AllowAlways
)

// ApprovalHints is the card's bottom edge once it takes answers.
const ApprovalHints = "y allow · a session · n deny · Esc abort · Alt+V params"

// SaveRuleHints is the bottom edge of a card that can save its rule.
const SaveRuleHints = "y allow · a session · n deny · s always · Esc abort · Alt+V params"

// ExplicitHints is the bottom edge of a card that only a yes to this one
// call answers.
const ExplicitHints = "y allow once · n deny · Esc abort · Alt+V params"

// options are the choices the card offers (approvalcard.Options).
func (a *Approval) options() []Choice { return approvalcard.Options(a.Req) }

// Decision is the card's answer, for the root model to send.
type Decision struct {
	ID     string
	Choice Choice
}

// Approval is the approval card. Deny is selected when it opens, so a
// reflexive Enter never authorises.
type Approval struct {
	Req    engine.ApprovalRequired
	theme  *theme.Theme
	focus  Focus
	sel    int
	scroll int // first body row shown
	body   bodyCache
}

// NewApproval opens a card for req; focused is false when the person is
// typing for the composer as it opens (the focus rule).
func NewApproval(t *theme.Theme, req engine.ApprovalRequired, focused bool) *Approval {
	a := &Approval{Req: req, theme: t, focus: NewFocus(focused)}
	a.sel = a.index(Deny)
	return a
}

// index is the row of choice c.
func (a *Approval) index(c Choice) int {
	for i, o := range a.options() {
		if o == c {
			return i
		}
	}
	return 0
}

// FullScreen implements View.
func (a *Approval) FullScreen() bool { return false }

// Selected is the highlighted option.
func (a *Approval) Selected() Choice { return a.options()[a.sel] }

// Update implements View. Without focus every key but Tab is passed on; a
// paste is never an answer.
func (a *Approval) Update(k tea.KeyMsg) Action {
	if act, ok := a.focus.route(k); ok {
		return act
	}
	switch k.String() {
	case "ctrl+c", "esc":
		return a.decide(a.escChoice())
	case "y", "Y", "1":
		return a.decide(AllowOnce)
	case "a", "A", "2":
		if !a.Req.ForcePrompt {
			return a.decide(AllowSession)
		}
	case "s", "S":
		if a.Req.SaveRule != "" && !a.Req.ForcePrompt {
			return a.decide(AllowAlways)
		}
	case "n", "N", "d", "D", "3":
		return a.decide(Deny)
	case "up", "k":
		a.sel = max(a.sel-1, 0)
	case "down", "j":
		a.sel = min(a.sel+1, len(a.options())-1)
	case "pgdown", "shift+down", "ctrl+d":
		a.scroll += a.body.page
	case "pgup", "shift+up", "ctrl+u":
		a.scroll = max(a.scroll-a.body.page, 0)
	case "enter":
		return a.decide(a.Selected())
	case "alt+v":
		return emit(OpenPager{Title: "Tool Params: " + a.Req.ToolName, Body: a.paramsText()})
	}
	return none()
}

// Wheel implements Wheeler: the wheel moves the selection.
func (a *Approval) Wheel(delta int) Action {
	a.sel = min(max(a.sel+delta, 0), len(a.options())-1)
	return none()
}

// escChoice is Esc's answer: abort the turn, or deny the person's own
// command, which runs in no turn.
func (a *Approval) escChoice() Choice {
	if a.Req.Direct {
		return Deny
	}
	return Abort
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

// View implements View. The card never cuts what it asks about: the body
// (command, edit text, write preview, authority flags) is wrapped in full
// and scrolls when it is taller than the room the card has.
func (a *Approval) View(w, h int) string {
	inner := max(w-4, 1)
	edge := func(s string) string { return a.theme.Warning.Render(s) }
	head := a.theme.Bold.Render(a.Req.ToolName)
	if d := strings.TrimLeft(strings.TrimPrefix(a.Req.Description, a.Req.ToolName), " ·"); d != "" {
		head += " · " + termtext.Sanitize(d)
	}
	unfocused := !a.focus.Focused()
	opts := make([]string, 0, 4)
	for i, c := range a.options() {
		o := c.Text()
		switch {
		case unfocused && i == a.sel:
			opts = append(opts, a.theme.Dim.Render("▸ "+o))
		case unfocused:
			opts = append(opts, a.theme.Dim.Render("  "+o))
		case i == a.sel:
			opts = append(opts, a.theme.Selected.Render("▸ "+o))
		default:
			opts = append(opts, "  "+o)
		}
	}
	// A card that can save a rule says which, before the person says s:
	// the rule is permanent, so what it covers is shown, not implied.
	if a.Req.SaveRule != "" && !a.Req.ForcePrompt {
		saves := termtext.WrapStyled("s saves: "+termtext.Sanitize(a.Req.SaveRule), inner)
		for _, r := range saves {
			opts = append(opts, a.theme.Dim.Render(r))
		}
	}
	rows := termtext.WrapStyled(head, inner)
	body := a.bodyRows(inner)
	// Two edges, the head, the options and one row for a scroll marker.
	room := max(h-2-len(rows)-len(opts)-1, 3)
	rows = append(rows, a.window(body, room)...)
	rows = append(rows, opts...)
	hints := ApprovalHints
	switch {
	case unfocused:
		hints = UnfocusedHint
	case a.Req.ForcePrompt:
		hints = ExplicitHints
	case a.Req.SaveRule != "":
		hints = SaveRuleHints
	}
	if a.Req.Direct {
		hints = strings.Replace(hints, "Esc abort", "Esc deny", 1)
	}
	if !unfocused {
		hints += FocusedTail
	}
	return box(rows, w, "approval", hints, edge)
}

// window shows room rows of body from the scroll position, with a marker
// saying what is above and below.
func (a *Approval) window(body []string, room int) []string {
	a.body.page = max(room-1, 1)
	if len(body) <= room {
		a.scroll = 0
		return body
	}
	a.scroll = min(a.scroll, len(body)-(room-1))
	shown := body[a.scroll : a.scroll+room-1]
	below := len(body) - a.scroll - len(shown)
	marker := "lines " + itoa(a.scroll+1) + "–" + itoa(a.scroll+len(shown)) + " of " + itoa(len(body))
	if below > 0 {
		marker = "↓ " + marker + " · PgDn more"
	}
	if a.scroll > 0 {
		marker += " · PgUp back"
	}
	return append(append([]string(nil), shown...), a.theme.Accent.Render(marker+" · Alt+V all"))
}
