package services

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/lsp"
)

// lspCommand is /lsp [list|restart [name]]: the language servers, their
// state and last error; restart stops them (off the UI goroutine) so the
// next file of their language starts them afresh.
func (sv *Services) LSP(host Host, arg string) tea.Cmd {
	servers := sv.c.LSP
	if !servers.Enabled() {
		host.System("Language servers are off ([lsp] enabled = false in config.toml): edits are not checked.")
		return nil
	}
	verb, name, _ := strings.Cut(strings.TrimSpace(arg), " ")
	switch strings.ToLower(verb) {
	case "", "list":
		host.System(lspListing(servers))
	case "restart":
		name = strings.TrimSpace(name)
		return func() tea.Msg {
			n := servers.Restart(name)
			what := "every language server"
			if name != "" {
				what = name
			}
			if n == 0 {
				return NoteMsg{Text: fmt.Sprintf("No running server to restart (%s); a server starts with the first file of its language.", what)}
			}
			return NoteMsg{Text: fmt.Sprintf("Stopped %s (%d); the next file of its language starts it again.", what, n)}
		}
	default:
		host.SystemError("Usage: /lsp [list|restart [name]]")
	}
	return nil
}

// lspListing is /lsp's text: the servers started this session with their
// state, then the configured ones not started yet or not installed.
func lspListing(servers *lsp.Manager) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Language servers (an edit waits up to %v for its diagnostics):\n", servers.Wait())
	started := map[string]bool{}
	for _, s := range servers.Status() {
		started[s.Name] = true
		fmt.Fprintf(&b, "  %s  %s  %s (%d open)", s.Name, s.State, s.Root, s.Files)
		if s.Detail != "" {
			fmt.Fprintf(&b, "\n      %s", s.Detail)
		}
		b.WriteString("\n")
	}
	var idle, missing []string
	for _, s := range servers.Servers() {
		switch {
		case started[s.Name]:
		case s.Found:
			idle = append(idle, fmt.Sprintf("%s (%s)", s.Name, s.Files))
		default:
			missing = append(missing, fmt.Sprintf("%s (%s)", s.Name, s.Why))
		}
	}
	if len(idle) > 0 {
		b.WriteString("Not started yet (each starts with the first file of its language): " + strings.Join(idle, ", ") + "\n")
	}
	if len(missing) > 0 {
		b.WriteString("Not installed: " + strings.Join(missing, ", ") + "\n")
	}
	b.WriteString("/lsp restart [name] stops servers; the next file of their language starts them again.")
	return b.String()
}
