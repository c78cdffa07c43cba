package services

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
func (sv *Services) Hooks(host Host, arg string) tea.Cmd {
	r := sv.c.Hooks
	switch strings.ToLower(strings.TrimSpace(arg)) {
	case "", "list":
		if r == nil {
			host.System("No hooks are configured. Add [[hooks]] to config.toml, or .codewhale/hooks.toml to the project " +
				"(it runs once you trust it); /hooks events lists the events.")
			return nil
		}
		host.System(r.Describe())
	case "events":
		host.System("Hook events:\n  " + strings.Join(hookEvents, "\n  "))
	case "trust":
		if r == nil {
			host.SystemError("There is no " + hooks.ProjectFile(sv.c.Workspace) + " to trust.")
			return nil
		}
		msg, err := r.Trust()
		if err != nil {
			host.SystemError(err.Error())
			return nil
		}
		host.System(msg)
	default:
		host.SystemError("Usage: /hooks [list|events|trust]")
	}
	return nil
}
