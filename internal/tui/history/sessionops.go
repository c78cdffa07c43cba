package history

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
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/views"
)

func contextMinute() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), time.Minute)
}

// notSaved is the answer for a session with no file yet.
const notSaved = "this session is not saved yet (it is saved with its first message)"

// Rename is /rename <title>.
func (h *History) Rename(host Host, arg string) tea.Cmd {
	if strings.TrimSpace(arg) == "" {
		host.SystemError("Usage: /rename <title>")
		return nil
	}
	return h.renameTo(host, arg)
}

func (h *History) renameTo(host Host, title string) tea.Cmd {
	if h.c.Home == "" {
		host.SystemError("Sessions are not stored in this run.")
		return nil
	}
	home, j, id := h.c.Home, h.c.Journal, host.Session()
	return func() tea.Msg {
		err := session.Rename(home, j, id, title)
		switch {
		case errors.Is(err, session.ErrNoSession):
			return noteMsg{text: "Error: Cannot rename: " + notSaved + "."}
		case err != nil:
			return noteMsg{text: "Error: Rename failed: " + err.Error()}
		}
		return noteMsg{text: fmt.Sprintf("Renamed session %s to %q.", session.ShortID(id), strings.Join(strings.Fields(title), " "))}
	}
}

// Export is /export [markdown|json] [path]: the transcript of this
// session to a new file (default <workspace>/codewhale-<id>.md|.json).
func (h *History) Export(host Host, arg string) tea.Cmd {
	format, path := session.ExportMarkdown, ""
	for _, f := range strings.Fields(arg) {
		if ef, err := session.ParseExportFormat(f); err == nil && path == "" {
			format = ef
			continue
		}
		if path != "" {
			host.SystemError("Usage: /export [markdown|json] [path]")
			return nil
		}
		path = f
	}
	if h.c.Home == "" {
		host.SystemError("Sessions are not stored in this run.")
		return nil
	}
	home, id, ws := h.c.Home, host.Session(), h.c.Workspace
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
				return noteMsg{text: "Error: Nothing to export: " + notSaved + "."}
			}
			return noteMsg{text: "Error: Export failed: " + err.Error()}
		}
		if err := session.ExportFile(path, l, format); err != nil {
			return noteMsg{text: "Error: " + err.Error()}
		}
		return noteMsg{text: fmt.Sprintf("Exported the transcript (%d messages, %s) to %s.", len(l.Session.Messages), format, path)}
	}
}

// listArchived is /sessions archived: archived sessions, `a` lists one
// again.
func (h *History) listArchived(host Host) tea.Cmd {
	if h.c.Home == "" {
		return host.Status("Sessions are not stored in this run", theme.Info)
	}
	home, ws := h.c.Home, h.c.Workspace
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
func (h *History) archiveSession(host Host, p *views.Picker, id string) tea.Cmd {
	on := p.Name != ArchivedPicker
	if err := session.Archive(h.c.Home, h.c.Journal, id, on); err != nil {
		return host.Status("Archive failed: "+err.Error(), theme.Warning)
	}
	p.Remove(id)
	if on {
		return host.Status("Archived session "+session.ShortID(id)+" (/sessions archived lists it)", theme.Success)
	}
	return host.Status("Session "+session.ShortID(id)+" is listed again", theme.Success)
}

// archiveCommand is /sessions archive|unarchive <id|prefix>.
func (h *History) archiveCommand(host Host, id string, on bool) tea.Cmd {
	home, j := h.c.Home, h.c.Journal
	return func() tea.Msg {
		l, err := session.Resolve(home, "", id, false)
		if err == nil {
			err = session.Archive(home, j, l.Meta.ID, on)
		}
		if err != nil {
			return noteMsg{text: "Error: " + err.Error()}
		}
		if on {
			return noteMsg{text: "Archived session " + session.ShortID(l.Meta.ID) + "; /sessions archived lists it."}
		}
		return noteMsg{text: "Session " + session.ShortID(l.Meta.ID) + " is listed again."}
	}
}
