package tui

import (
	"strings"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/tui/chrome"
	"github.com/codewhale/codewhale/internal/tui/slash"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/views"
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
	case m.queue.len() > 0:
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
		if f := views.FocusOf(v); f != nil && (!f.Focused() || !m.comp.Empty()) {
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
	rows = append(rows, m.headerInfo().Rows(m.theme, m.w, l.header)...)
	rows = append(rows, m.transcriptRows(l.transcript)...)
	rows = append(rows, m.previewRows(l.preview)...)
	if l.status > 0 {
		text, sev := m.status.current()
		rows = append(rows, chrome.StatusRow(m.theme, m.w, text, sev))
	}
	live := m.turn.busy || m.turn.phase == phaseDone || m.turn.phase == phaseFailed || l.modal != nil
	if live {
		rows = append(rows, m.activity().Strip(m.theme, m.w))
	}
	if l.modal != nil {
		rows = append(rows, l.modal...)
		rows = append(rows, m.menu.View(l.popup, m.w)...)
		if l.composer > 0 {
			rows = append(rows, m.attach.Rows(l.chips, m.w)...)
			rows = append(rows, m.composerRows(l.composer)...)
		}
	} else {
		rows = append(rows, m.menu.View(l.popup, m.w)...)
		rows = append(rows, m.attach.Rows(l.chips, m.w)...)
		rows = append(rows, m.composerRows(l.composer)...)
		if !live {
			rows = append(rows, m.activity().Strip(m.theme, m.w))
		}
	}
	for i, r := range rows {
		rows[i] = termtext.Truncate(r, m.w, "")
	}
	return strings.Join(rows, "\n")
}

func (m *Model) transcriptRows(h int) []string {
	if m.tr.Len() == 0 && m.h >= 16 && m.w >= 60 {
		return chrome.Empty(m.theme, m.w, h, m.o.Version, m.o.Workspace)
	}
	return m.tr.View(m.w, h)
}

// headerInfo is what the top bar says now.
func (m *Model) headerInfo() chrome.Header {
	return chrome.Header{Provider: m.route.Provider, Model: m.route.Model, HasKey: m.route.HasKey, Mode: m.mode,
		Posture: m.posture, Effort: m.route.EffortLabel(), Scope: m.sandboxStatus().Scope(), Meter: &m.meter}
}

// sandboxStatus is the posture of commands run now (CONTRACT.md §14.2):
// `files: workspace (enforced)`, `(unenforced)` when no OS mechanism
// confines them, `files: full disk` with danger-full-access. Postures
// never change it.
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

// previewRows is the pending-input preview (CONTRACT.md §14.2): queued
// messages, else the local commands' outputs for the next message, else
// the restored-prompt mark.
func (m *Model) previewRows(n int) []string {
	if n > 0 && m.queue.len() == 0 && m.outputs.Len() > 0 {
		return []string{m.outputs.View(m.w)}
	}
	if row := m.restoredRow(); n > 0 && m.queue.len() == 0 && row != "" {
		return []string{row}
	}
	return chrome.Queued(m.theme, m.w, n, m.queue.items)
}

// activity is what the phase strip says the session is doing.
func (m *Model) activity() chrome.Activity {
	t := &m.turn
	return chrome.Activity{
		Waiting:   m.stack.TopApproval() != nil || (t.busy && t.phase == phaseWaiting),
		Working:   t.busy && !t.cancelling,
		Spinner:   m.env.Spinner(),
		Label:     t.label,
		Elapsed:   m.now().Sub(t.started),
		Running:   t.running,
		Done:      t.phase == phaseDone,
		Failed:    t.phase == phaseFailed,
		Selecting: m.modes.has(modeSelecting),
		Drafting:  !m.comp.Empty(),
		Usage:     chrome.UsageChip(&m.meter, m.meter.Children(m.o.Agents.UsageByModel())),
		Busy:      t.busy,
	}
}

// composerRows is the posture-coloured top edge and the input.
func (m *Model) composerRows(n int) []string {
	edge := m.theme.Edge(m.posture)
	if m.mode == posture.Plan {
		edge = m.theme.ReadOnly.UnsetBold()
	}
	rows := []string{edge.Render(strings.Repeat("─", m.w))}
	m.comp.SetFocused(m.stack.ComposerHasKeys())
	return append(rows, strings.Split(m.comp.View(n), "\n")...)
}
