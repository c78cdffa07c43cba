package tui

import (
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/tui/slash"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/transcript"
	"github.com/codewhale/codewhale/internal/tui/usage"
)

// minTranscript is the fewest transcript rows kept on screen.
const minTranscript = 3

// layout is the row budget of one frame, top to bottom.
type layout struct {
	header, transcript, preview, status, popup, composer int
	chips                                                int      // the attached images' row above the composer
	modal                                                []string // a bottom-anchored modal's rows, replacing the composer
}

// layout splits the height: header, transcript (at least three rows),
// pending-input preview, phase strip, popup and composer (or a bottom
// modal). The preview and popup shrink first on small terminals.
func (m *Model) layout() layout {
	var l layout
	l.header = 2
	if m.h < 16 {
		l.header = 1
	}
	free := m.h - l.header - 1 - minTranscript // 1 = phase strip
	switch {
	case len(m.queue) > 0:
		l.preview = min(2, max(free-2, 0))
	case m.outputs.Len() > 0 || m.restoredRow() != "":
		l.preview = min(1, max(free-2, 0))
	}
	free -= l.preview
	if m.attach.Visible() && free > 2 {
		l.chips = 1
		free--
	}
	if text, _ := m.status.current(); text != "" && free > 1 {
		l.status = 1
		free--
	}
	if v := m.stack.Top(); v != nil && !v.FullScreen() {
		if f := focusOf(v); f != nil && (!f.Focused() || !m.comp.Empty()) {
			// An unfocused card's keys go to the composer, so it stays in
			// sight below the card with its cursor (and its menu); a draft
			// stays in sight under a focused card too, without a cursor.
			l.composer = min(m.comp.Rows(), 3, max(free-8, 1))
			free -= l.composer + 1
			if !f.Focused() && m.menu.Visible() {
				l.popup = max(min(m.menu.Len(), slash.Rows, free-8), 0)
				free -= l.popup
			}
		}
		rows := strings.Split(v.View(m.w, max(free, 3)), "\n")
		if len(rows) > free {
			rows = rows[len(rows)-max(free, 1):]
		}
		l.modal = rows
		free -= len(rows)
	} else {
		l.composer = min(m.comp.Rows(), max(free-1, 1)) // 1 = composer edge
		free -= l.composer + 1
		if m.menu.Visible() {
			l.popup = max(min(m.menu.Len(), slash.Rows, free), 0)
			free -= l.popup
		}
	}
	l.transcript = max(m.h-l.header-1-l.preview-l.chips-l.status-l.popup-l.composer-len(l.modal)-boolInt(l.composer > 0 || l.modal == nil), 1)
	return l
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// View renders the frame.
func (m *Model) View() string {
	if m.modes.has(modeQuitting) {
		return ""
	}
	if v := m.stack.Top(); v != nil && v.FullScreen() {
		return v.View(m.w, m.h)
	}
	l := m.layout()
	rows := make([]string, 0, m.h)
	rows = append(rows, m.header(l.header)...)
	rows = append(rows, m.transcriptRows(l.transcript)...)
	rows = append(rows, m.previewRows(l.preview)...)
	if l.status > 0 {
		rows = append(rows, m.statusRow())
	}
	live := m.turn.busy || m.turn.phase == phaseDone || m.turn.phase == phaseFailed || l.modal != nil
	if live {
		rows = append(rows, m.phaseStrip())
	}
	if l.modal != nil {
		rows = append(rows, l.modal...)
		rows = append(rows, m.menu.View(l.popup, m.w)...)
		if l.composer > 0 {
			rows = append(rows, m.chipRows(l.chips)...)
			rows = append(rows, m.composerRows(l.composer)...)
		}
	} else {
		rows = append(rows, m.menu.View(l.popup, m.w)...)
		rows = append(rows, m.chipRows(l.chips)...)
		rows = append(rows, m.composerRows(l.composer)...)
		if !live {
			rows = append(rows, m.phaseStrip())
		}
	}
	for i, r := range rows {
		rows[i] = termtext.Truncate(r, m.w, "")
	}
	return strings.Join(rows, "\n")
}

func (m *Model) transcriptRows(h int) []string {
	if m.tr.Len() == 0 && m.h >= 16 && m.w >= 60 {
		return m.emptyState(h)
	}
	return m.tr.View(m.w, h)
}

// emptyState is the brand mark and one context line.
func (m *Model) emptyState(h int) []string {
	rows := make([]string, h)
	mid := h / 2
	center := func(s string, styled string) string {
		return strings.Repeat(" ", max((m.w-termtext.Width(s))/2, 0)) + styled
	}
	brand := "codewhale"
	if m.o.Version != "" {
		brand += " " + m.o.Version
	}
	if mid-1 >= 0 {
		rows[mid-1] = center(brand, m.theme.Brand.Render(brand))
	}
	line := termtext.Truncate(m.o.Workspace+" · /help for commands · Tab switches mode", m.w-4, "…")
	if mid < h {
		rows[mid] = center(line, m.theme.Dim.Render(line))
	}
	return rows
}

// permissionChip is `read only` in Plan, else the posture chip.
func (m *Model) permissionChip() string {
	if m.mode == posture.Plan {
		return "read only"
	}
	return m.posture.Chip()
}

// fsScope is the filesystem scope label of the sandbox the session's
// commands run under in the current mode (CONTRACT.md §14.2): `files: workspace
// (enforced)`, `(unenforced)` when no OS mechanism confines them, `files:
// full disk` with danger-full-access. Postures never change it.
func (m *Model) fsScope() string { return m.sandboxStatus().Scope() }

// sandboxStatus is the posture of commands run now.
func (m *Model) sandboxStatus() sandbox.Status {
	if m.o.Sandbox == nil {
		st := sandbox.Status{Mode: sandbox.WorkspaceWrite, Mechanism: sandbox.None, Reason: "no sandbox attached"}
		if m.mode == posture.Plan {
			st.Mode = sandbox.ReadOnly
		}
		return st
	}
	return engine.SandboxFor(m.o.Sandbox, m.mode).Status()
}

// header is the top bar (CONTRACT.md §14.2): brand, route, mode, effort,
// permission and filesystem scope, chips, and the context meter. On narrow
// terminals the meter goes first, then the provider name, then the
// "(unenforced)" note, then the filesystem scope, and only then is the
// model name cut, so the mode and permission chips always show whole.
func (m *Model) header(rows int) []string {
	t := m.theme
	brand := " " + t.Brand.Render("cw") + "  "
	full := m.fsScope()
	model := m.route.Model
	if model == "" {
		model = "server default"
	}
	route := m.route.Provider + " · " + model
	scope := full
	ctx := m.contextMeter()
	reserve := termtext.Width(ctx) + boolInt(ctx != "")
	fits := func() bool { return termtext.Width(brand+route+m.headerTail(scope))+reserve <= m.w }
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
	tail := m.headerTail(scope)
	route = termtext.Truncate(route, max(m.w-termtext.Width(brand+tail)-reserve, 4), "…")
	left := brand + route + tail
	if room := m.w - reserve; termtext.Width(left) > room {
		left = termtext.Truncate(left, max(room, 1), "…") // a clipped chip ends in an ellipsis, never mid-word
	}
	line := left
	if ctx != "" {
		line = termtext.PadRight(left, m.w-termtext.Width(ctx)) + t.Dim.Render(ctx)
	}
	out := []string{line}
	if rows > 1 {
		out = append(out, t.Rule.Render(strings.Repeat("─", m.w)))
	}
	return out
}

// headerTail is ` · mode · effort · permission · scope` and the chips; an
// empty scope is left out. The effort chip is labelled so `auto` effort
// never reads as the `auto` permission posture.
func (m *Model) headerTail(scope string) string {
	t := m.theme
	permStyle := t.Posture[m.posture]
	if m.mode == posture.Plan {
		permStyle = t.ReadOnly
	}
	tail := " · " + t.Mode[m.mode].Render(m.mode.String()) + " · effort " + m.effortLabel() + " · " +
		permStyle.Render(m.permissionChip())
	if scope != "" {
		tail += " · " + t.Dim.Render(scope)
	}
	if !m.route.HasKey {
		tail += "  " + t.Warning.Render("no key")
	}
	return tail
}

// contextMeter is the header's meter. Its form depends on the width
// alone, so it never changes shape or vanishes as a session grows: the
// full `41.2k/1.0M [■□□□□] 4%` from 110 columns, the compact
// `41.2k/1.0M 4%` from 60, none below; "" before any usage.
func (m *Model) contextMeter() string {
	if m.meter.Requests == 0 || m.w < 60 {
		return ""
	}
	used, window := m.meter.LastInput, m.meter.ContextWindow(m.route.Model)
	if m.meter.WindowAssumed(m.route.Model) {
		assumed := "ctx ? " + usage.FormatWindow(window) + " assumed"
		if m.w >= 110 {
			return usage.FormatTokens(used) + " · " + assumed
		}
		return assumed
	}
	if m.w >= 110 {
		return usage.ContextMeter(used, window)
	}
	return usage.CompactMeter(used, window)
}

// previewRows is the pending-input preview (CONTRACT.md §14.2).
func (m *Model) previewRows(n int) []string {
	if n > 0 && len(m.queue) == 0 && m.outputs.Len() > 0 {
		return []string{m.outputs.View(m.w)}
	}
	if row := m.restoredRow(); n > 0 && len(m.queue) == 0 && row != "" {
		return []string{row}
	}
	if n == 0 || len(m.queue) == 0 {
		return nil
	}
	first := fmt.Sprintf("Queued #1: %s", termtext.OneLine(m.queue[0]))
	if len(m.queue) > 1 {
		first = fmt.Sprintf("Queued %d · next: %s", len(m.queue), termtext.OneLine(m.queue[0]))
	}
	rows := []string{m.theme.Accent.Render(termtext.Truncate(first, m.w, "…")),
		m.theme.Dim.Render(termtext.Truncate("Enter send now · ↑ edit · /queue drop 1", m.w, "…"))}
	return rows[:min(n, 2)]
}

// phaseStrip is the one-row phase indicator with the session's usage on
// the right (CONTRACT.md §14.2).
func (m *Model) phaseStrip() string {
	t := m.theme
	marker, label, style := "·", "idle", t.Dim
	switch {
	case m.stack.TopApproval() != nil || (m.turn.busy && m.turn.phase == phaseWaiting):
		marker, label, style = transcript.GlyphAttention, "waiting on you…", t.Warning
	case m.turn.busy && !m.turn.cancelling:
		marker, label, style = m.env.Spinner(), m.turn.label, t.Accent
		detail := transcript.FormatDuration(m.now().Sub(m.turn.started))
		if m.turn.running > 1 {
			detail = fmt.Sprintf("×%d", m.turn.running)
		}
		label += " · " + detail + " · Esc to interrupt"
	case m.turn.phase == phaseDone:
		marker, label, style = transcript.GlyphDone, "done", t.Success
	case m.turn.phase == phaseFailed:
		marker, label, style = transcript.GlyphFailed, "failed", t.Error
	case m.modes.has(modeSelecting): // stays in sight for as long as the mode lasts, not a toast's seconds
		marker, label, style = "▚", "selection mode · Alt+S scrolls again", t.Warning
	case !m.comp.Empty():
		marker, label = "›", "drafting…"
	}
	left := style.Render("▌"+marker) + " " + label
	right := m.usageChip()
	if right == "" && !m.turn.busy {
		right = "/ commands · Tab mode · Shift+Tab permissions"
	}
	right = t.Dim.Render(right)
	room := m.w - termtext.Width(right) - 1
	if termtext.Width(left) > room {
		return termtext.Truncate(left, m.w, "…")
	}
	return termtext.PadRight(left, room) + right
}

// statusRow is the transient status text (Status events, toasts).
func (m *Model) statusRow() string {
	text, sev := m.status.current()
	st := m.theme.Dim
	switch sev {
	case sevError:
		st = m.theme.Error
	case sevWarning:
		st = m.theme.Warning
	case sevSuccess:
		st = m.theme.Success
	}
	return st.Render(termtext.Truncate(text, m.w, "…"))
}

// usageChip is `<tokens> tok · <cost> · cache NN%`, "" before any usage;
// the tokens and cost include the sub-agents', each priced at its model.
func (m *Model) usageChip() string {
	kids := m.childCosts()
	if m.meter.Requests == 0 && m.meter.Tokens() == 0 && len(kids) == 0 {
		return ""
	}
	tokens, cost := m.meter.TotalText(kids)
	s := usage.FormatTokens(tokens) + " tok · " + cost
	if pct, ok := m.meter.CacheHitPercent(); ok {
		s += fmt.Sprintf(" · cache %d%%", pct)
	}
	return s
}

// composerRows is the posture-coloured top edge and the input.
func (m *Model) composerRows(n int) []string {
	edge := m.theme.Edge(m.posture)
	if m.mode == posture.Plan {
		edge = m.theme.ReadOnly.UnsetBold()
	}
	rows := []string{edge.Render(strings.Repeat("─", m.w))}
	m.comp.SetFocused(m.composerHasKeys())
	return append(rows, strings.Split(m.comp.View(n), "\n")...)
}
