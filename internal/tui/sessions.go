package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/transcript"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// sessionsMsg carries a listing for the picker.
type sessionsMsg struct {
	metas    []session.Meta
	err      error
	archived bool // the archived sessions (/sessions archived)
}

// resumedMsg carries a loaded session.
type resumedMsg struct {
	loaded *session.Loaded
	err    error
}

// sessionsUsage is /sessions' usage line.
const sessionsUsage = "/sessions [show|open <id>|prune <days>|archived|archive <id>|unarchive <id>]"

// sessionsCommand is /sessions [show|open <id>|prune <days>|archived|
// archive <id>|unarchive <id>].
func (m *Model) sessionsCommand(arg string) tea.Cmd {
	action, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(action) {
	case "", "show":
		return m.openSessions()
	case "open":
		if rest == "" {
			m.systemError("Usage: /sessions open <id>")
			return nil
		}
		return m.resumeSession(rest)
	case "prune":
		days, err := strconv.Atoi(rest)
		if err != nil || days < 1 {
			m.systemError("Usage: /sessions prune <days>")
			return nil
		}
		return m.pruneSessions(days)
	case "archived":
		return m.listArchived()
	case "archive", "unarchive":
		if rest == "" {
			m.systemError("Usage: /sessions " + strings.ToLower(action) + " <id>")
			return nil
		}
		return m.archiveCommand(rest, strings.EqualFold(action, "archive"))
	}
	m.systemError("Usage: " + sessionsUsage)
	return nil
}

// openSessions lists this workspace's sessions, newest first, in a picker.
func (m *Model) openSessions() tea.Cmd {
	if m.o.Home == "" {
		return m.setStatus("Sessions are not stored in this run", sevInfo)
	}
	home, ws := m.o.Home, m.o.Workspace
	return func() tea.Msg {
		metas, err := session.List(home, session.Query{Workspace: ws, Limit: 200})
		return sessionsMsg{metas: metas, err: err}
	}
}

func (m *Model) showSessions(msg sessionsMsg) tea.Cmd {
	if msg.err != nil {
		m.systemError("Listing sessions failed: " + msg.err.Error())
		return nil
	}
	if len(msg.metas) == 0 {
		m.system(map[bool]string{false: "No saved sessions in this workspace yet.", true: "No archived sessions in this workspace."}[msg.archived])
		return nil
	}
	now := m.now()
	items := make([]views.Item, 0, len(msg.metas))
	for _, s := range msg.metas {
		title := s.Title
		if title == "" {
			title = "(untitled " + session.ShortID(s.ID) + ")"
		}
		hint := fmt.Sprintf("%s · %d msgs · %s", session.Age(s.UpdatedAt, now), s.MessageCount, s.Model)
		if s.ParentSessionID != "" {
			hint += " · fork of " + session.ShortID(s.ParentSessionID)
		}
		items = append(items, views.Item{Label: termtext.Truncate(termtext.OneLine(title), 48, "…"), Hint: hint, Value: s.ID})
	}
	p := views.NewPicker(m.theme, "session", "Sessions — Enter resumes", items, m.session)
	if msg.archived {
		p = views.NewPicker(m.theme, archivedPicker, "Archived sessions — Enter resumes", items, m.session)
	}
	p.Filter, p.Delete, p.Archive = true, true, true
	m.push(p)
	return nil
}

// resumeSession loads a session and hands it to the engine.
func (m *Model) resumeSession(ref string) tea.Cmd {
	if m.turn.busy {
		m.systemError("Cannot resume a session while a turn is running — press Esc to interrupt first")
		return nil
	}
	home, ws, j := m.o.Home, m.o.Workspace, m.o.Journal
	return func() tea.Msg {
		l, err := session.ResolveOwned(j, home, ws, ref, false)
		return resumedMsg{loaded: l, err: err}
	}
}

func (m *Model) resumed(msg resumedMsg) tea.Cmd {
	if msg.err != nil {
		m.systemError("Resume failed: " + msg.err.Error())
		return nil
	}
	l := msg.loaded
	m.o.Engine.Submit(engine.SyncSession{Session: l.Session, Persist: l.Persist})
	m.session, m.mode = l.Session.ID, l.Session.Mode
	if l.Session.Model != "" {
		m.route.Model = l.Session.Model
	}
	m.updatePlaceholder()
	m.tr.Clear()
	m.snapshot = nil
	m.meter = m.freshMeter()
	m.meter.Resume(l.Session.Usage, session.Cost(m.route.Model, l.Session.Usage, m.o.Prices))
	rebuild(m.tr, l.Session.Messages)
	m.undo = undoState{hist: l.Session.Messages}
	for _, msg := range l.Session.Messages { // ↑ recalls what was typed before the resume
		if msg.Role == provider.RoleUser && msg.Typed() {
			m.comp.Remember(msg.PromptText())
		}
	}
	for _, n := range l.Notices() {
		// What the resume found and repaired outlives the status line.
		m.tr.Add(transcript.NewCell(transcript.Notice, termtext.Sanitize(n)))
	}
	m.system(fmt.Sprintf("Resumed session %s (%d messages).", session.ShortID(l.Session.ID), len(l.Session.Messages)))
	return nil
}

// deleteSession deletes a saved session from the picker; the current one
// is refused (it is being written).
func (m *Model) deleteSession(p *views.Picker, id string) tea.Cmd {
	if id == m.session {
		return m.setStatus("This is the current session; /new first to delete it", sevWarning)
	}
	if err := session.Delete(m.o.Home, id); err != nil {
		return m.setStatus("Delete failed: "+err.Error(), sevWarning)
	}
	p.Remove(id)
	return m.setStatus("Deleted session "+session.ShortID(id), sevSuccess)
}

func (m *Model) pruneSessions(days int) tea.Cmd {
	home, keep, now := m.o.Home, m.session, m.now()
	return func() tea.Msg {
		removed, err := session.Prune(home, config.Retention{MaxAgeDays: days}, keep, now)
		if err != nil {
			return systemMsg{text: "Error: Pruning sessions failed: " + err.Error()}
		}
		return systemMsg{text: fmt.Sprintf("Pruned %d session(s) older than %d day(s).", len(removed), days)}
	}
}

// systemMsg adds a System cell from a command that ran off the UI
// goroutine.
type systemMsg struct{ text string }

// rebuild turns stored messages into transcript cells: typed prompts,
// replies, reasoning and tool calls with their results.
func rebuild(tr *transcript.Transcript, msgs []provider.Message) {
	tools := map[string]*transcript.Cell{}
	group := 0
	for _, msg := range msgs {
		switch msg.Role {
		case provider.RoleUser:
			for _, b := range msg.Content {
				if b.Type == provider.BlockToolResult {
					if c := tools[b.ToolUseID]; c != nil {
						c.Complete(storedOutcome(b), time.Time{})
					}
				}
			}
			if s := strings.Join(append([]string{typedText(msg)}, imageLines(msg)...), "\n"); strings.TrimSpace(s) != "" && msg.Typed() {
				tr.Add(transcript.NewCell(transcript.User, strings.TrimSpace(s)))
			}
		case provider.RoleAssistant, provider.RoleAssistantInterrupted:
			group++
			if th := strings.TrimSpace(msg.Thinking()); th != "" && th != provider.ReasoningOmitted {
				tr.Add(transcript.NewCell(transcript.Thinking, th))
			}
			if tx := strings.TrimSpace(msg.Text()); tx != "" {
				c := tr.Add(transcript.NewCell(transcript.Assistant, tx))
				c.Interrupted = msg.Role == provider.RoleAssistantInterrupted
			}
			for _, u := range msg.ToolUses() {
				tools[u.ID] = tr.Add(transcript.NewTool(u.ID, u.Name, u.Input, group, time.Time{}))
			}
		}
	}
	for _, c := range tools {
		if !c.Tool.Done {
			c.Complete(engine.ToolOutcome{Content: "No result recorded."}, time.Time{})
		}
	}
}

// storedOutcome is a tool result as the live cell saw it: the receipt the
// engine stored with it (status, category, the tool's metadata). Sessions
// written before receipts existed only know whether the call was refused.
func storedOutcome(b provider.Block) engine.ToolOutcome {
	o := engine.ToolOutcome{Content: b.Content, Success: !b.IsError, IsError: b.IsError}
	if r := b.Receipt; r != nil {
		o.Success, o.Category, o.Metadata = r.Success, r.Category, r.Meta
	}
	return o
}

// typedText is what a person typed in a user message: text blocks without
// the engine's turn metadata or runtime notices.
func typedText(msg provider.Message) string { return msg.PromptText() }
