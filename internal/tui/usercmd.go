package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tui/slash"
)

// BuiltinCommand reports whether name (lower case, no slash) is a built-in
// command, one of its aliases, a fixed mode alias or a retired name: a user
// command of that name loses (CONTRACT.md §17.2).
func BuiltinCommand(name string) bool { return slash.IsBuiltin(builtinRows(), name) }

// runUserCommand sends the command's expansion as the message of a turn
// scoped by its frontmatter; while a turn runs it is queued as typed.
func (m *Model) runUserCommand(c *projectctx.Command, args string) tea.Cmd {
	line := "/" + c.Name
	if args != "" {
		line += " " + args
	}
	if m.turn.busy {
		m.queue.add(line)
		return m.status.set("Queued /"+c.Name+"; it runs when this turn ends", sevInfo)
	}
	text := c.Expand(args)
	if strings.TrimSpace(text) == "" {
		m.systemError(fmt.Sprintf("/%s expands to nothing: %s has no text.", c.Name, c.Path))
		return nil
	}
	for _, n := range c.Notes {
		m.system("/" + c.Name + ": " + n)
	}
	return m.sendMessage(line, engine.SendMessage{Content: text, Provenance: engine.ProvenanceUser, Scope: Scope(c)})
}

// Scope is the turn scope a user command's frontmatter asks for (nil when
// it asks for nothing); exec uses it too.
func Scope(c *projectctx.Command) *engine.TurnScope {
	if c.Model == "" && c.Mode == nil && c.AllowedTools == nil {
		return nil
	}
	return &engine.TurnScope{Command: c.Name, Model: c.Model, Mode: c.Mode, AllowTools: c.AllowedTools}
}
