// Package chrome draws the frame around the transcript: the header, the
// phase strip, the status row, the queued-message preview and the empty
// state (CONTRACT.md §14.2). Each is a pure function of what the root
// model says is true now, so each is tested alone at every width.
package chrome

import (
	"fmt"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/transcript"
	"github.com/codewhale/codewhale/internal/tui/usage"
)

// Header is what the top bar says.
type Header struct {
	Provider, Model string // Model "" is the server's default
	HasKey          bool
	Mode            posture.Mode
	Posture         posture.Posture
	Effort          string // the effort label ("auto", "high", …)
	// Scope is the sandbox's filesystem scope label, `files: workspace
	// (enforced)`, `… (unenforced)` or `files: full disk`.
	Scope string
	// Meter is the session's usage (nil or no requests: no context meter).
	Meter *usage.Meter
}

// PermissionChip is `read only` in Plan, else the posture's chip.
func PermissionChip(mode posture.Mode, p posture.Posture) string {
	if mode == posture.Plan {
		return "read only"
	}
	return p.Chip()
}

// Rows is the top bar in w columns: brand, route, mode, effort,
// permission and filesystem scope, chips, and the context meter; a rule
// under it when rows > 1. On narrow terminals the provider name goes
// first, then the "(unenforced)" note, then the filesystem scope, and
// only then is the model name cut, so the mode and permission chips
// always show whole. The meter's form depends on the width alone.
func (h Header) Rows(t *theme.Theme, w, rows int) []string {
	brand := " " + t.Brand.Render("cw") + "  "
	model := h.Model
	if model == "" {
		model = "server default"
	}
	route := h.Provider + " · " + model
	full := h.Scope
	scope := full
	ctx := h.contextMeter(w)
	reserve := termtext.Width(ctx) + boolInt(ctx != "")
	fits := func() bool { return termtext.Width(brand+route+h.tail(t, scope))+reserve <= w }
	for _, step := range []func(){
		func() { route = model },
		func() { scope = strings.TrimSuffix(full, " (unenforced)") },
		func() { scope = "" },
	} {
		if fits() {
			break
		}
		step()
	}
	tail := h.tail(t, scope)
	route = termtext.Truncate(route, max(w-termtext.Width(brand+tail)-reserve, 4), "…")
	left := brand + route + tail
	if room := w - reserve; termtext.Width(left) > room {
		left = termtext.Truncate(left, max(room, 1), "…") // a clipped chip ends in an ellipsis, never mid-word
	}
	line := left
	if ctx != "" {
		line = termtext.PadRight(left, w-termtext.Width(ctx)) + t.Dim.Render(ctx)
	}
	out := []string{line}
	if rows > 1 {
		out = append(out, t.Rule.Render(strings.Repeat("─", w)))
	}
	return out
}

// tail is ` · mode · effort · permission · scope` and the chips; an empty
// scope is left out. The effort chip is labelled so `auto` effort never
// reads as the `auto` permission posture.
func (h Header) tail(t *theme.Theme, scope string) string {
	permStyle := t.Posture[h.Posture]
	if h.Mode == posture.Plan {
		permStyle = t.ReadOnly
	}
	tail := " · " + t.Mode[h.Mode].Render(h.Mode.String()) + " · effort " + h.Effort + " · " +
		permStyle.Render(PermissionChip(h.Mode, h.Posture))
	if scope != "" {
		tail += " · " + t.Dim.Render(scope)
	}
	if !h.HasKey {
		tail += "  " + t.Warning.Render("no key")
	}
	return tail
}

// contextMeter is the full `41.2k/1.0M [■□□□□] 4%` from 110 columns, the
// compact `41.2k/1.0M 4%` from 60, none below; "" before any usage, so
// it never changes shape or vanishes as a session grows.
func (h Header) contextMeter(w int) string {
	m := h.Meter
	if m == nil || m.Requests == 0 || w < 60 {
		return ""
	}
	used, window := m.LastInput, m.ContextWindow(h.Model)
	if m.WindowAssumed(h.Model) {
		assumed := "ctx ? " + usage.FormatWindow(window) + " assumed"
		if w >= 110 {
			return usage.FormatTokens(used) + " · " + assumed
		}
		return assumed
	}
	if w >= 110 {
		return usage.ContextMeter(used, window)
	}
	return usage.CompactMeter(used, window)
}

// Activity is what the phase strip says the session is doing, first
// match wins: waiting on the person, working, done, failed, selection
// mode, drafting, idle.
type Activity struct {
	// Waiting: an approval card is on top, or the turn waits on an answer.
	Waiting bool
	// Working: a turn runs and is not being cancelled; Spinner and Label
	// say what it does, Elapsed how long, Running how many calls at once.
	Working        bool
	Spinner, Label string
	Elapsed        time.Duration
	Running        int
	Done, Failed   bool // the last turn's end, until the next one
	Selecting      bool // selection mode: stays in sight for as long as it lasts
	Drafting       bool // the composer holds text
	// Usage is the session's usage chip; with none and no turn running
	// the strip shows the key hints instead.
	Usage string
	Busy  bool // a turn runs (cancelling or not)
}

// Strip is the one-row phase indicator with the usage on the right.
func (a Activity) Strip(t *theme.Theme, w int) string {
	marker, label, style := "·", "idle", t.Dim
	switch {
	case a.Waiting:
		marker, label, style = transcript.GlyphAttention, "waiting on you…", t.Warning
	case a.Working:
		marker, label, style = a.Spinner, a.Label, t.Accent
		detail := transcript.FormatDuration(a.Elapsed)
		if a.Running > 1 {
			detail = fmt.Sprintf("×%d", a.Running)
		}
		label += " · " + detail + " · Esc to interrupt"
	case a.Done:
		marker, label, style = transcript.GlyphDone, "done", t.Success
	case a.Failed:
		marker, label, style = transcript.GlyphFailed, "failed", t.Error
	case a.Selecting:
		marker, label, style = "▚", "selection mode · Alt+S scrolls again", t.Warning
	case a.Drafting:
		marker, label = "›", "drafting…"
	}
	left := style.Render("▌"+marker) + " " + label
	right := a.Usage
	if right == "" && !a.Busy {
		right = "/ commands · Tab mode · Shift+Tab permissions"
	}
	right = t.Dim.Render(right)
	room := w - termtext.Width(right) - 1
	if termtext.Width(left) > room {
		return termtext.Truncate(left, w, "…")
	}
	return termtext.PadRight(left, room) + right
}

// UsageChip is `<tokens> tok · <cost> · cache NN%`, "" before any usage;
// the tokens and cost include the sub-agents' (kids), each priced at its
// model.
func UsageChip(m *usage.Meter, kids []usage.ModelCost) string {
	if m.Requests == 0 && m.Tokens() == 0 && len(kids) == 0 {
		return ""
	}
	tokens, cost := m.TotalText(kids)
	s := usage.FormatTokens(tokens) + " tok · " + cost
	if pct, ok := m.CacheHitPercent(); ok {
		s += fmt.Sprintf(" · cache %d%%", pct)
	}
	return s
}

// StatusRow is the transient status text, coloured by severity.
func StatusRow(t *theme.Theme, w int, text string, sev theme.Severity) string {
	st := t.Dim
	switch sev {
	case theme.Error:
		st = t.Error
	case theme.Warning:
		st = t.Warning
	case theme.Success:
		st = t.Success
	}
	return st.Render(termtext.Truncate(text, w, "…"))
}

// Queued is the preview of queued messages in at most n (≤ 2) rows: the
// next one and how to act on it.
func Queued(t *theme.Theme, w, n int, queue []string) []string {
	if n == 0 || len(queue) == 0 {
		return nil
	}
	first := fmt.Sprintf("Queued #1: %s", termtext.OneLine(queue[0]))
	if len(queue) > 1 {
		first = fmt.Sprintf("Queued %d · next: %s", len(queue), termtext.OneLine(queue[0]))
	}
	rows := []string{t.Accent.Render(termtext.Truncate(first, w, "…")),
		t.Dim.Render(termtext.Truncate("Enter send now · ↑ edit · /queue drop 1", w, "…"))}
	return rows[:min(n, 2)]
}

// Empty is the empty transcript's h rows: the brand mark and one line of
// context, centred.
func Empty(t *theme.Theme, w, h int, version, workspace string) []string {
	rows := make([]string, h)
	mid := h / 2
	center := func(s string, styled string) string {
		return strings.Repeat(" ", max((w-termtext.Width(s))/2, 0)) + styled
	}
	brand := "codewhale"
	if version != "" {
		brand += " " + version
	}
	if mid-1 >= 0 {
		rows[mid-1] = center(brand, t.Brand.Render(brand))
	}
	line := termtext.Truncate(workspace+" · /help for commands · Tab switches mode", w-4, "…")
	if mid < h {
		rows[mid] = center(line, t.Dim.Render(line))
	}
	return rows
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
