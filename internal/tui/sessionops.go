package tui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// undoUpdate handles the messages of undo, restore, retry and the session
// commands (Model.Update hands them over).
func (m *Model) undoUpdate(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case plannedMsg:
		return m.planned(msg)
	case carriedMsg:
		return m.carried(msg)
	case turnsMsg:
		return m.showTurns(msg)
	case retryNow:
		return m.cutBack(msg.pr.cut, msg.pr.resend)
	}
	return nil
}

// pickedMore applies the choices of the undo and session views.
func (m *Model) pickedMore(p views.Picked) tea.Cmd {
	switch p.Picker {
	case kindUndo, kindRestore, kindRetry:
		return m.answered(p.Picker, p.Value)
	case "restore-turn":
		return m.restorePicked(p.Value)
	case "edit":
		return m.editPicked(p.Value)
	case archivedPicker:
		return m.resumeSession(p.Value)
	case initPicker:
		return m.initPicked(p.Value)
	}
	return nil
}

func contextMinute() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), time.Minute)
}

// notSaved is the answer for a session with no file yet.
const notSaved = "this session is not saved yet (it is saved with its first message)"

// renameCommand is /rename <title>.
func (m *Model) renameCommand(arg string) tea.Cmd {
	if strings.TrimSpace(arg) == "" {
		m.systemError("Usage: /rename <title>")
		return nil
	}
	return m.renameTo(arg)
}

func (m *Model) renameTo(title string) tea.Cmd {
	if m.o.Home == "" {
		m.systemError("Sessions are not stored in this run.")
		return nil
	}
	home, j, id := m.o.Home, m.o.Journal, m.session
	return func() tea.Msg {
		err := session.Rename(home, j, id, title)
		switch {
		case errors.Is(err, session.ErrNoSession):
			return systemMsg{text: "Error: Cannot rename: " + notSaved + "."}
		case err != nil:
			return systemMsg{text: "Error: Rename failed: " + err.Error()}
		}
		return systemMsg{text: fmt.Sprintf("Renamed session %s to %q.", session.ShortID(id), strings.Join(strings.Fields(title), " "))}
	}
}

// exportCommand is /export [markdown|json] [path]: the transcript of this
// session to a new file (default <workspace>/codewhale-<id>.md|.json).
func (m *Model) exportCommand(arg string) tea.Cmd {
	format, path := session.ExportMarkdown, ""
	for _, f := range strings.Fields(arg) {
		if ef, err := session.ParseExportFormat(f); err == nil && path == "" {
			format = ef
			continue
		}
		if path != "" {
			m.systemError("Usage: /export [markdown|json] [path]")
			return nil
		}
		path = f
	}
	if m.o.Home == "" {
		m.systemError("Sessions are not stored in this run.")
		return nil
	}
	home, id, ws := m.o.Home, m.session, m.o.Workspace
	if path == "" {
		path = "codewhale-" + session.ShortID(id) + format.Ext()
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(ws, path)
	}
	return func() tea.Msg {
		l, err := session.Resolve(home, "", id, false)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "no saved session matches") {
				return systemMsg{text: "Error: Nothing to export: " + notSaved + "."}
			}
			return systemMsg{text: "Error: Export failed: " + err.Error()}
		}
		if err := session.ExportFile(path, l, format); err != nil {
			return systemMsg{text: "Error: " + err.Error()}
		}
		return systemMsg{text: fmt.Sprintf("Exported the transcript (%d messages, %s) to %s.", len(l.Session.Messages), format, path)}
	}
}

// archivedPicker names the picker of archived sessions.
const archivedPicker = "archived-session"

// listArchived is /sessions archived: archived sessions, `a` lists one
// again.
func (m *Model) listArchived() tea.Cmd {
	if m.o.Home == "" {
		return m.setStatus("Sessions are not stored in this run", sevInfo)
	}
	home, ws := m.o.Home, m.o.Workspace
	return func() tea.Msg {
		all, err := session.List(home, session.Query{Workspace: ws, Archived: true})
		var metas []session.Meta
		for _, s := range all {
			if s.Archived {
				metas = append(metas, s)
			}
		}
		return sessionsMsg{metas: metas, err: err, archived: true}
	}
}

// archiveSession archives (or, in the archived list, unarchives) a picker
// row's session.
func (m *Model) archiveSession(p *views.Picker, id string) tea.Cmd {
	on := p.Name != archivedPicker
	if err := session.Archive(m.o.Home, m.o.Journal, id, on); err != nil {
		return m.setStatus("Archive failed: "+err.Error(), sevWarning)
	}
	p.Remove(id)
	if on {
		return m.setStatus("Archived session "+session.ShortID(id)+" (/sessions archived lists it)", sevSuccess)
	}
	return m.setStatus("Session "+session.ShortID(id)+" is listed again", sevSuccess)
}

// archiveCommand is /sessions archive|unarchive <id|prefix>.
func (m *Model) archiveCommand(id string, on bool) tea.Cmd {
	home, j := m.o.Home, m.o.Journal
	return func() tea.Msg {
		l, err := session.Resolve(home, "", id, false)
		if err == nil {
			err = session.Archive(home, j, l.Meta.ID, on)
		}
		if err != nil {
			return systemMsg{text: "Error: " + err.Error()}
		}
		if on {
			return systemMsg{text: "Archived session " + session.ShortID(l.Meta.ID) + "; /sessions archived lists it."}
		}
		return systemMsg{text: "Session " + session.ShortID(l.Meta.ID) + " is listed again."}
	}
}
