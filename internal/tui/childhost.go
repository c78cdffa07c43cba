package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tui/attach"
	"github.com/codewhale/codewhale/internal/tui/handoff"
	"github.com/codewhale/codewhale/internal/tui/history"
	"github.com/codewhale/codewhale/internal/tui/initflow"
	"github.com/codewhale/codewhale/internal/tui/jobsview"
	"github.com/codewhale/codewhale/internal/tui/routes"
	"github.com/codewhale/codewhale/internal/tui/services"
	"github.com/codewhale/codewhale/internal/tui/settings"
	"github.com/codewhale/codewhale/internal/tui/switches"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/transcript"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// childHost is the root model as its children see it (history.Host,
// services.SendHost, attach.Host, …).
type childHost struct{ m *Model }

var (
	_ history.Host      = childHost{}
	_ services.SendHost = childHost{}
	_ attach.Host       = childHost{}
	_ handoff.Host      = childHost{}
	_ initflow.Host     = childHost{}
	_ routes.Host       = childHost{}
	_ switches.Host     = childHost{}
	_ jobsview.Host     = childHost{}
	_ settings.Host     = childHost{}
)

func (h childHost) System(text string)      { h.m.system(text) }
func (h childHost) SystemError(text string) { h.m.systemError(text) }
func (h childHost) Push(v views.View)       { h.m.stack.Push(v) }
func (h childHost) Busy() bool              { return h.m.turn.busy }
func (h childHost) Session() string         { return h.m.session }
func (h childHost) Send(text string) tea.Cmd {
	return h.m.send(text)
}

func (h childHost) Status(text string, sev theme.Severity) tea.Cmd {
	return h.m.status.set(text, sev)
}

func (h childHost) Redraw(msgs []provider.Message) {
	h.m.tr.Clear()
	rebuild(h.m.tr, msgs)
}

func (h childHost) Forked(id string) {
	m := h.m
	m.session = id
	m.snapshot = nil
	m.meter.Reset()
}

func (h childHost) Paste(text string) tea.Cmd {
	return h.m.comp.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(text), Paste: true})
}

// Edited puts the external editor's text in the composer.
func (h childHost) Edited(text string) tea.Cmd {
	m := h.m
	m.comp.SetValue(text)
	m.modes.set(modeRestored, false)
	return tea.Batch(m.status.set("Message taken back from the editor", sevInfo), m.menu.Refresh())
}

func (h childHost) Locked(setting string) { h.m.systemError(locked(setting)) }

func (h childHost) SendMessage(line string, op engine.SendMessage) tea.Cmd {
	return h.m.sendMessage(line, op)
}

func (h childHost) LastReply() *transcript.Cell { return h.m.tr.Last(transcript.Assistant) }

func (h childHost) Typing() bool { return h.m.typing() }

func (h childHost) Route() Route { return h.m.route }

func (h childHost) SwitchRoute(r Route, table *provider.ModelTable) {
	m := h.m
	effort := m.route.Effort
	m.route = r
	m.route.Effort = effort
	m.meter.Table, m.meter.FirstParty = table, provider.IsFirstParty(r.BaseURL)
}

func (h childHost) SetModelName(name string) { h.m.route.Model = name }

func (h childHost) FullAccess() bool { return h.m.posture == posture.FullAccess }

func (h childHost) Model() string  { return h.m.route.Model }
func (h childHost) Effort() string { return h.m.route.EffortLabel() }

func (h childHost) SetModel(name string) tea.Cmd { return h.m.routes.SetModel(h, name) }

func (h childHost) SetEffort(tier string) tea.Cmd { return h.m.switches.Effort(h, tier) }

func (h childHost) Queue(line string) { h.m.queue.add(line) }

func (h childHost) ComposerText() string        { return h.m.comp.Value() }
func (h childHost) SetComposerText(text string) { h.m.comp.SetValue(text) }

func (h childHost) LockedText(setting string) string { return locked(setting) }

func (h childHost) Mode() posture.Mode       { return h.m.mode }
func (h childHost) Posture() posture.Posture { return h.m.posture }
func (h childHost) SetEffortValue(e string)  { h.m.route.Effort = e }

func (h childHost) SetModes(mode *posture.Mode, p *posture.Posture) {
	if mode != nil {
		h.m.mode = *mode
	}
	if p != nil {
		h.m.posture = *p
	}
	h.m.comp.SetPlaceholder(placeholder(h.m.mode))
}

func (h childHost) SetDraft(text string) {
	h.m.comp.SetValue(text)
	h.m.menu.Refresh()
}

func (h childHost) Resumed(l *session.Loaded) {
	m := h.m
	m.session, m.mode = l.Session.ID, l.Session.Mode
	if l.Session.Model != "" {
		m.route.Model = l.Session.Model
	}
	m.comp.SetPlaceholder(placeholder(m.mode))
	m.snapshot = nil
	m.meter.Reset()
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
