// Package services is the TUI's child for the slash commands over the
// session's services: /agents (the defined sub-agent types), /automations,
// /permissions (the saved rules), /hooks, /lsp, /context, /skills, /trust
// and /mcp. It reaches
// the root model only through Host; work done off the UI goroutine comes
// back to Update as a message.
package services

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/hooks"
	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/mcp"
	"github.com/codewhale/codewhale/internal/permissions"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// Host is what the child needs of the root model.
type Host interface {
	// System and SystemError add a System cell to the transcript.
	System(text string)
	SystemError(text string)
	// Push opens a view on top of the modal stack.
	Push(v views.View)
	// FullAccess reports whether the session runs with Full Access (which
	// implies trust mode).
	FullAccess() bool
}

// Config names the session's services; a nil one is reported as not
// available.
type Config struct {
	Theme         *theme.Theme
	Workspace     string
	Home          string          // CODEWHALE_HOME, where workspace trust is recorded ("" = none)
	Submit        func(engine.Op) // sends an op to the engine (/trust)
	Project       *projectctx.Context
	Agents        *agent.Manager
	Automations   *auto.Store
	WakeScheduler func() // tells this process's scheduler after a change
	Permissions   *permissions.Set
	Hooks         *hooks.Runner
	LSP           *lsp.Manager
	MCP           *mcp.Pool
	// Prompts resolves a /mcp:<server>:<prompt> name (the command table).
	Prompts func(name string) (server string, pr mcp.PromptInfo, ok bool)
}

// Services is the child.
type Services struct {
	c       Config
	trustOn bool // /trust on (Full Access implies it too)
}

// New builds the child.
func New(c Config) *Services { return &Services{c: c} }

// NoteMsg adds a System cell from work done off the UI goroutine (the
// Model hands it back to Update).
type NoteMsg struct{ Text string }

// Update takes the child's own messages; ok is false for any other.
func (sv *Services) Update(host SendHost, msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case NoteMsg:
		host.System(msg.Text)
		return nil, true
	case SendMsg:
		return sv.mcpSend(host, msg), true
	}
	return nil, false
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
