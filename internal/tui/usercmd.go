package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tui/commands"
)

// userCommands is the UI's view of the project's user commands: which load
// the command table was built from and which names lost to a built-in.
type userCommands struct {
	generation int
	reported   map[string]bool // collisions already reported
}

// BuiltinCommand reports whether name (lower case, no slash) is a built-in
// command, one of its aliases, a fixed mode alias or a retired name: a user
// command of that name loses (CONTRACT.md §17.2).
func BuiltinCommand(name string) bool {
	if _, ok := commands.ModeAlias(name); ok {
		return true
	}
	if _, ok := commands.Retired(name); ok {
		return true
	}
	for _, c := range slashCommands {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return true
		}
	}
	return false
}

// syncCommands rebuilds the command table when the project's commands
// were reloaded, and reports each new collision with a built-in once.
func (m *Model) syncCommands() {
	mcpSame := m.o.MCP == nil || m.o.MCP.Version() == m.mcpVersion
	if m.reg != nil && mcpSame && (m.o.Project == nil || m.o.Project.State().Generation == m.ucmds.generation) {
		return
	}
	var lost []string
	rows := append(m.commandTable(), m.mcpPromptRows()...)
	if m.o.Project != nil {
		st := m.o.Project.State()
		m.ucmds.generation = st.Generation
		for _, c := range st.Commands {
			if BuiltinCommand(c.Name) {
				lost = append(lost, c.Name+" ("+c.Path+")")
				continue
			}
			rows = append(rows, userRow(c))
		}
	}
	m.reg = commands.New(rows)
	if m.ucmds.reported == nil {
		m.ucmds.reported = map[string]bool{}
	}
	for _, l := range lost {
		if !m.ucmds.reported[l] {
			m.ucmds.reported[l] = true
			m.systemError("User command /" + l + " is not available: a built-in command has that name. Rename the file.")
		}
	}
}

// userRow is a user command's row in the table, the menu and /help,
// marked as a user command with its source.
func userRow(c projectctx.Command) commands.Command {
	help := c.Description
	if help == "" {
		help = "(no description)"
	}
	return commands.Command{Name: c.Name, Usage: c.ArgumentHint, Help: help + " · user command, " + c.Source}
}

// isUserRow reports whether a table row is a user command's.
func isUserRow(c commands.Command) bool { return strings.Contains(c.Help, " · user command, ") }

// userCommand finds the user command named name; an unknown name makes the
// UI look at the disk once, so a command file added since the last turn
// is found.
func (m *Model) userCommand(name string) (*projectctx.Command, bool) {
	if m.o.Project == nil || BuiltinCommand(name) {
		return nil, false
	}
	if c, ok := m.o.Project.State().Command(name); ok {
		return c, true
	}
	if changes := m.o.Project.Refresh(); len(changes) > 0 {
		m.system(strings.Join(changes, "\n"))
		m.syncCommands()
	}
	return m.o.Project.State().Command(name)
}

// runUserCommand sends the command's expansion as the message of a turn
// scoped by its frontmatter; while a turn runs it is queued as typed.
func (m *Model) runUserCommand(c *projectctx.Command, args string) tea.Cmd {
	line := "/" + c.Name
	if args != "" {
		line += " " + args
	}
	if m.turn.busy {
		m.queue = append(m.queue, line)
		return m.setStatus("Queued /"+c.Name+"; it runs when this turn ends", sevInfo)
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

// skillsCommand is /skills [name]: the skills with their descriptions and
// sources, or one skill's folder and files.
func (m *Model) skillsCommand(arg string) tea.Cmd {
	if m.o.Project == nil {
		m.system("No skills in this session.")
		return nil
	}
	st := m.o.Project.State()
	if name := strings.TrimSpace(arg); name != "" {
		sk, ok := st.Skill(name)
		if !ok {
			m.systemError(fmt.Sprintf("No skill named %q. Skills: %s", name, orNone(st.SkillNames())))
			return nil
		}
		c, err := sk.Content()
		if err != nil {
			m.systemError(err.Error())
			return nil
		}
		size := fmt.Sprintf("%d bytes", len(c.Body))
		if c.Cut != "" {
			size += " (cut)"
		}
		m.system(fmt.Sprintf("Skill %s — %s\nSource: %s (%s)\nInstructions: %s\nFiles: %s", sk.Name, sk.Description,
			sk.Source, sk.Path, size, orNone(c.Files)))
		return nil
	}
	var b strings.Builder
	if len(st.Skills) == 0 {
		b.WriteString("No skills. A skill is a folder with a SKILL.md (frontmatter name and description) in " +
			".codewhale/skills/, .claude/skills/ or $CODEWHALE_HOME/skills/.")
	} else {
		fmt.Fprintf(&b, "Skills (%d; the model loads one with load_skill when a task matches):", len(st.Skills))
		for _, sk := range st.Skills {
			fmt.Fprintf(&b, "\n  %s — %s\n    %s · %s", sk.Name, sk.Description, sk.Source, sk.Path)
		}
	}
	for _, p := range st.Problems {
		if strings.Contains(p, "SKILL.md") || strings.HasPrefix(p, "skill ") {
			b.WriteString("\nProblem: " + p)
		}
	}
	m.system(b.String())
	return nil
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
