package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/hooks"
)

// hookEvents is /hooks events: what each event is for.
var hookEvents = []string{
	"session_start — once as the session starts; its message is shown",
	"shell_env — once as the session starts; its env object joins every command's environment",
	"message_submit — before your message is sent; may rewrite it (message) or block it (exit 2 / decision block)",
	"tool_call_before — before a call runs; may block it with a reason the model reads, or ask for your approval",
	"tool_call_after — after a call ran; its message is added to the result the model reads",
	"notification — an approval waits, a turn is done (in the background)",
	"turn_end — as a turn ends; its message is shown",
}

// hooksCommand is /hooks [list|events|trust].
func (m *Model) hooksCommand(arg string) tea.Cmd {
	r := m.o.Hooks
	switch strings.ToLower(strings.TrimSpace(arg)) {
	case "", "list":
		if r == nil {
			m.system("No hooks are configured. Add [[hooks]] to config.toml, or .codewhale/hooks.toml to the project " +
				"(it runs once you trust it); /hooks events lists the events.")
			return nil
		}
		m.system(r.Describe())
	case "events":
		m.system("Hook events:\n  " + strings.Join(hookEvents, "\n  "))
	case "trust":
		if r == nil {
			m.systemError("There is no " + hooks.ProjectFile(m.o.Workspace) + " to trust.")
			return nil
		}
		msg, err := r.Trust()
		if err != nil {
			m.systemError(err.Error())
			return nil
		}
		m.system(msg)
	default:
		m.systemError("Usage: /hooks [list|events|trust]")
	}
	return nil
}
