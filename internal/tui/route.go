package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/tui/initflow"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// locked is the refusal for a live-route change while a turn runs.
func locked(setting string) string {
	return setting + " is locked while a turn is running — press Esc to interrupt first"
}

// picked applies a picker choice.
func (m *Model) picked(p views.Picked) tea.Cmd {
	switch p.Picker {
	case initflow.Picker:
		return m.init.Picked(m.hhost, p.Value)
	}
	if cmd, ok := m.switches.Picked(m.hhost, p); ok {
		return cmd
	}
	if cmd, ok := m.routes.Picked(m.hhost, p); ok {
		return cmd
	}
	cmd, _ := m.history.Picked(m.hhost, p)
	return cmd
}
