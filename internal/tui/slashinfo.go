package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/tui/chrome"
	"github.com/codewhale/codewhale/internal/tui/usage"
)

// trustCommand reports trust mode; changing it needs engine support that
// does not exist yet, and saying otherwise would be a fake success.
func (m *Model) statusCommand(string) tea.Cmd {
	var b strings.Builder
	fmt.Fprintf(&b, "Session: %s\nWorkspace: %s\n", orDash(m.session), orDash(m.o.Workspace))
	fmt.Fprintf(&b, "Provider: %s · model %s · base URL %s\n", m.route.Provider, m.route.Model, orDash(m.route.BaseURL))
	key := "found (" + orDash(m.route.KeySource) + ")"
	if m.route.KeyHost != "" {
		key += ", sent to " + m.route.KeyHost
	}
	if m.route.KeySource == "none" || m.route.KeySource == "" {
		key = "not needed for this loopback endpoint"
	}
	if !m.route.HasKey {
		key = fmt.Sprintf("missing — set %s, run `codewhale auth set --provider %s`, or add api_key to config.toml",
			keyEnvOf(m.route), m.route.Provider)
	}
	fmt.Fprintf(&b, "API key: %s\n", key)
	fmt.Fprintf(&b, "Mode: %s · permissions: %s · effort: %s\n", m.mode.Title(), chrome.PermissionChip(m.mode, m.posture), m.route.EffortLabel())
	b.WriteString(m.sandboxStatus().Report())
	state := "idle"
	switch {
	case m.turn.cancelling:
		state = "cancelling (waiting for the turn to stop)"
	case m.turn.busy:
		state = "turn running"
	}
	fmt.Fprintf(&b, "State: %s · queued: %d\n", state, m.queue.len())
	fmt.Fprintf(&b, "Tokens: %s · cost: %s\n", usage.FormatTokens(m.meter.Tokens()), usage.FormatCost(m.meter.Cost))
	if ctx := usage.ContextMeter(m.meter.LastInput, m.meter.ContextWindow(m.route.Model)); ctx != "" && m.meter.Requests > 0 {
		fmt.Fprintf(&b, "Context: %s\n", ctx)
	}
	jobsN := 0
	if m.o.Jobs != nil {
		jobsN = len(m.o.Jobs.List())
	}
	if m.o.Project != nil {
		fmt.Fprintf(&b, "%s\n", m.o.Project.State().Summary())
	}
	fmt.Fprintf(&b, "Bash jobs: %d (/jobs)", jobsN)
	m.system(b.String())
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (m *Model) verboseCommand(arg string) tea.Cmd {
	switch strings.ToLower(strings.TrimSpace(arg)) {
	case "":
		m.env.Verbose = !m.env.Verbose
	case "on":
		m.env.Verbose = true
	case "off":
		m.env.Verbose = false
	default:
		m.systemError("Usage: /verbose [on|off]")
		return nil
	}
	m.tr.Invalidate()
	if m.env.Verbose {
		m.system("Verbose on: reasoning is shown in the transcript.")
	} else {
		m.system("Verbose off: reasoning is collapsed (Ctrl+O opens it).")
	}
	return nil
}

// queueCommand is /queue [list|send <n>|edit <n>|drop <n>|clear].
func (m *Model) queueCommand(arg string) tea.Cmd {
	const usage = "Usage: /queue [list|send <n>|edit <n>|drop <n>|clear]"
	action, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	switch action = strings.ToLower(action); action {
	case "", "list":
		m.system(m.queue.list())
		return nil
	case "clear":
		m.system(fmt.Sprintf("Dropped %d queued message(s).", m.queue.clear()))
		return nil
	case "drop", "edit", "send":
	default:
		m.systemError(usage)
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(rest))
	text, ok := m.queue.take(n)
	if err != nil || !ok {
		m.systemError(usage)
		return nil
	}
	switch action {
	case "drop":
		m.system(fmt.Sprintf("Dropped queued message %d.", n))
	case "edit":
		m.queue.pulled = text
		m.comp.SetValue(text)
	case "send":
		if m.turn.busy {
			return m.steer(text)
		}
		return m.send(text)
	}
	return nil
}
