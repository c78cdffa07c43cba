package services

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// contextCommand is /context [reload]: which project instruction files the
// session loaded, their sizes and cuts, the @-mentions left unexpanded, and
// the user commands and skills. reload looks for edits now instead of at
// the next turn.
func (sv *Services) Context(host Host, arg string) tea.Cmd {
	if sv.c.Project == nil {
		host.System("No project context in this session.")
		return nil
	}
	switch strings.ToLower(strings.TrimSpace(arg)) {
	case "":
	case "reload":
		changes := sv.c.Project.Refresh()
		if len(changes) == 0 {
			changes = []string{"Nothing changed on disk since the session read it."}
		}
		host.System(strings.Join(changes, "\n"))
	default:
		host.SystemError("Usage: /context [reload]")
		return nil
	}
	host.System(sv.c.Project.State().Report())
	return nil
}
