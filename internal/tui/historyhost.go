package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tui/history"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/transcript"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// historyHost is the root model as the history child sees it
// (history.Host).
type historyHost struct{ m *Model }

var _ history.Host = historyHost{}

func (h historyHost) System(text string)      { h.m.system(text) }
func (h historyHost) SystemError(text string) { h.m.systemError(text) }
func (h historyHost) Push(v views.View)       { h.m.push(v) }
func (h historyHost) Busy() bool              { return h.m.turn.busy }
func (h historyHost) Session() string         { return h.m.session }
func (h historyHost) Send(text string) tea.Cmd {
	return h.m.send(text)
}

func (h historyHost) Status(text string, sev history.Severity) tea.Cmd {
	s := sevInfo
	switch sev {
	case history.Warning:
		s = sevWarning
	case history.Success:
		s = sevSuccess
	}
	return h.m.setStatus(text, s)
}

func (h historyHost) Redraw(msgs []provider.Message) {
	h.m.tr.Clear()
	rebuild(h.m.tr, msgs)
}

func (h historyHost) Forked(id string) {
	m := h.m
	m.session = id
	m.snapshot = nil
	m.meter = m.freshMeter()
}

func (h historyHost) SetDraft(text string) {
	h.m.comp.SetValue(text)
	h.m.refreshPopup()
}

func (h historyHost) Resumed(l *session.Loaded) {
	m := h.m
	m.session, m.mode = l.Session.ID, l.Session.Mode
	if l.Session.Model != "" {
		m.route.Model = l.Session.Model
	}
	m.updatePlaceholder()
	m.snapshot = nil
	m.meter = m.freshMeter()
	m.meter.Resume(l.Session.Usage, session.Cost(m.route.Model, l.Session.Usage, m.o.Prices))
	h.Redraw(l.Session.Messages)
	for _, msg := range l.Session.Messages { // ↑ recalls what was typed before the resume
		if msg.Role == provider.RoleUser && msg.Typed() {
			m.comp.Remember(msg.PromptText())
		}
	}
	for _, n := range l.Notices() {
		// What the resume found and repaired outlives the status line.
		m.tr.Add(transcript.NewCell(transcript.Notice, termtext.Sanitize(n)))
	}
}
