package history

import (
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
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

// Sessions is /sessions [show|open <id>|prune <days>|archived|
// archive <id>|unarchive <id>].
func (h *History) Sessions(host Host, arg string) tea.Cmd {
	action, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(action) {
	case "", "show":
		return h.OpenSessions(host)
	case "open":
		if rest == "" {
			host.SystemError("Usage: /sessions open <id>")
			return nil
		}
		return h.Resume(host, rest)
	case "prune":
		days, err := strconv.Atoi(rest)
		if err != nil || days < 1 {
			host.SystemError("Usage: /sessions prune <days>")
			return nil
		}
		return h.pruneSessions(host, days)
	case "archived":
		return h.listArchived(host)
	case "archive", "unarchive":
		if rest == "" {
			host.SystemError("Usage: /sessions " + strings.ToLower(action) + " <id>")
			return nil
		}
		return h.archiveCommand(host, rest, strings.EqualFold(action, "archive"))
	}
	host.SystemError("Usage: " + sessionsUsage)
	return nil
}

// OpenSessions lists this workspace's sessions, newest first, in a picker.
func (h *History) OpenSessions(host Host) tea.Cmd {
	if h.c.Home == "" {
		return host.Status("Sessions are not stored in this run", theme.Info)
	}
	home, ws := h.c.Home, h.c.Workspace
	return func() tea.Msg {
		metas, err := session.List(home, session.Query{Workspace: ws, Limit: 200})
		return sessionsMsg{metas: metas, err: err}
	}
}

func (h *History) showSessions(host Host, msg sessionsMsg) tea.Cmd {
	if msg.err != nil {
		host.SystemError("Listing sessions failed: " + msg.err.Error())
		return nil
	}
	if len(msg.metas) == 0 {
		host.System(map[bool]string{false: "No saved sessions in this workspace yet.", true: "No archived sessions in this workspace."}[msg.archived])
		return nil
	}
	now := h.c.Now()
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
	p := views.NewPicker(h.c.Theme, SessionPicker, "Sessions — Enter resumes", items, host.Session())
	if msg.archived {
		p = views.NewPicker(h.c.Theme, ArchivedPicker, "Archived sessions — Enter resumes", items, host.Session())
	}
	p.Filter, p.Delete, p.Archive = true, true, true
	host.Push(p)
	return nil
}

// Resume loads a session and hands it to the engine.
func (h *History) Resume(host Host, ref string) tea.Cmd {
	if host.Busy() {
		host.SystemError("Cannot resume a session while a turn is running — press Esc to interrupt first")
		return nil
	}
	home, ws, j := h.c.Home, h.c.Workspace, h.c.Journal
	return func() tea.Msg {
		l, err := session.ResolveOwned(j, home, ws, ref, false)
		return resumedMsg{loaded: l, err: err}
	}
}

func (h *History) resumed(host Host, msg resumedMsg) tea.Cmd {
	if msg.err != nil {
		host.SystemError("Resume failed: " + msg.err.Error())
		return nil
	}
	l := msg.loaded
	h.c.Submit(engine.SyncSession{Session: l.Session, Persist: l.Persist})
	*h = History{c: h.c, hist: l.Session.Messages}
	host.Resumed(l)
	host.System(fmt.Sprintf("Resumed session %s (%d messages).", session.ShortID(l.Session.ID), len(l.Session.Messages)))
	return nil
}

// deleteSession deletes a saved session from the picker; the current one
// is refused (it is being written).
func (h *History) deleteSession(host Host, p *views.Picker, id string) tea.Cmd {
	if id == host.Session() {
		return host.Status("This is the current session; /new first to delete it", theme.Warning)
	}
	if err := session.Delete(h.c.Home, id); err != nil {
		return host.Status("Delete failed: "+err.Error(), theme.Warning)
	}
	p.Remove(id)
	return host.Status("Deleted session "+session.ShortID(id), theme.Success)
}

func (h *History) pruneSessions(host Host, days int) tea.Cmd {
	home, keep, now := h.c.Home, host.Session(), h.c.Now()
	return func() tea.Msg {
		removed, err := session.Prune(home, config.Retention{MaxAgeDays: days}, keep, now)
		if err != nil {
			return noteMsg{text: "Error: Pruning sessions failed: " + err.Error()}
		}
		return noteMsg{text: fmt.Sprintf("Pruned %d session(s) older than %d day(s).", len(removed), days)}
	}
}

// Loaded resumes a session loaded before the UI started: the command
// delivers it to Update as if picked.
func Loaded(l *session.Loaded) tea.Cmd {
	return func() tea.Msg { return resumedMsg{loaded: l} }
}
