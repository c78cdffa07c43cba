package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// contextCommand is /context [reload]: which project instruction files the
// session loaded, their sizes and cuts, the @-mentions left unexpanded, and
// the user commands and skills. reload looks for edits now instead of at
// the next turn.
func (m *Model) contextCommand(arg string) tea.Cmd {
	if m.o.Project == nil {
		m.system("No project context in this session.")
		return nil
	}
	switch strings.ToLower(strings.TrimSpace(arg)) {
	case "":
	case "reload":
		changes := m.o.Project.Refresh()
		if len(changes) == 0 {
			changes = []string{"Nothing changed on disk since the session read it."}
		}
		m.system(strings.Join(changes, "\n"))
	default:
		m.systemError("Usage: /context [reload]")
		return nil
	}
	m.system(m.o.Project.State().Report())
	return nil
}
