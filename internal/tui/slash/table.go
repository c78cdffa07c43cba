package slash

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale/codewhale/internal/mcp"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tui/commands"
)

// Reporter is where the table says what it found: a reloaded command
// file, a user command a built-in shadows.
type Reporter interface {
	System(text string)
	SystemError(text string)
}

// Table is the command table that dispatch, the menu and /help read: the
// built-in rows, the MCP servers' prompts and the project's user
// commands. It is rebuilt when the prompts or the commands change, and a
// user command that loses to a built-in is reported once.
type Table struct {
	builtin    []commands.Command
	project    *projectctx.Context // nil: no user commands
	pool       *mcp.Pool           // nil: no MCP prompts
	reg        *commands.Registry
	generation int    // the project load the rows were built from
	mcpVersion uint64 // the pool version the prompt rows were built from
	reported   map[string]bool
}

// NewTable builds the table over the built-in rows; project and pool may
// be nil.
func NewTable(builtin []commands.Command, project *projectctx.Context, pool *mcp.Pool) *Table {
	return &Table{builtin: builtin, project: project, pool: pool, reported: map[string]bool{}}
}

// Registry is the table as last synced.
func (t *Table) Registry() *commands.Registry { return t.reg }

// IsBuiltin reports whether name (lower case, no slash) is a built-in
// command of builtin, one of its aliases, a fixed mode alias or a retired
// name: a user command of that name loses (CONTRACT.md §17.2).
func IsBuiltin(builtin []commands.Command, name string) bool {
	if _, ok := commands.ModeAlias(name); ok {
		return true
	}
	if _, ok := commands.Retired(name); ok {
		return true
	}
	for _, c := range builtin {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return true
		}
	}
	return false
}

// Sync rebuilds the table when the project's commands were reloaded or
// the MCP prompts changed, and reports each new collision with a built-in
// once.
func (t *Table) Sync(r Reporter) {
	mcpSame := t.pool == nil || t.pool.Version() == t.mcpVersion
	if t.reg != nil && mcpSame && (t.project == nil || t.project.State().Generation == t.generation) {
		return
	}
	var lost []string
	rows := append(slices.Clone(t.builtin), t.promptRows()...)
	if t.project != nil {
		st := t.project.State()
		t.generation = st.Generation
		for _, c := range st.Commands {
			if IsBuiltin(t.builtin, c.Name) {
				lost = append(lost, c.Name+" ("+c.Path+")")
				continue
			}
			rows = append(rows, userRow(c))
		}
	}
	t.reg = commands.New(rows)
	for _, l := range lost {
		if !t.reported[l] {
			t.reported[l] = true
			r.SystemError("User command /" + l + " is not available: a built-in command has that name. Rename the file.")
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

// IsUserRow reports whether a table row is a user command's.
func IsUserRow(c commands.Command) bool { return strings.Contains(c.Help, " · user command, ") }

// UserCommand finds the user command named name; an unknown name makes
// the table look at the disk once, so a command file added since the
// last turn is found.
func (t *Table) UserCommand(r Reporter, name string) (*projectctx.Command, bool) {
	if t.project == nil || IsBuiltin(t.builtin, name) {
		return nil, false
	}
	if c, ok := t.project.State().Command(name); ok {
		return c, true
	}
	if changes := t.project.Refresh(); len(changes) > 0 {
		r.System(strings.Join(changes, "\n"))
		t.Sync(r)
	}
	return t.project.State().Command(name)
}

// promptRows are the connected servers' prompts as command table rows,
// so the slash menu completes them.
func (t *Table) promptRows() []commands.Command {
	if t.pool == nil {
		return nil
	}
	t.mcpVersion = t.pool.Version()
	var rows []commands.Command
	for _, st := range t.pool.Statuses() {
		for _, pr := range st.Prompts {
			help := pr.Description
			if help == "" {
				help = "(no description)"
			}
			if u := PromptUsage(pr, ""); u != "" {
				help = u + " — " + help
			}
			rows = append(rows, commands.Command{Name: PromptCommand(st.Name, pr.Name), Usage: strings.TrimSpace(PromptUsage(pr, "")),
				Help: help + " · MCP prompt, server " + st.Name})
		}
	}
	return rows
}

// Prompt resolves a /mcp:<server>:<prompt> name.
func (t *Table) Prompt(name string) (string, mcp.PromptInfo, bool) {
	if t.pool == nil {
		return "", mcp.PromptInfo{}, false
	}
	for _, st := range t.pool.Statuses() {
		for _, pr := range st.Prompts {
			if PromptCommand(st.Name, pr.Name) == name {
				return st.Name, pr, true
			}
		}
	}
	return "", mcp.PromptInfo{}, false
}

// PromptCommand is the slash command name of a server's prompt:
// mcp:<server>:<prompt>, lower case as the command table keeps names.
func PromptCommand(server, prompt string) string {
	return strings.ToLower("mcp:" + server + ":" + prompt)
}

// PromptUsage is a prompt's arguments from its schema: <required> [optional].
func PromptUsage(pr mcp.PromptInfo, lead string) string {
	var parts []string
	for _, a := range pr.Arguments {
		if a.Required {
			parts = append(parts, "<"+a.Name+">")
		} else {
			parts = append(parts, "["+a.Name+"]")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return lead + strings.Join(parts, " ")
}

// PromptArgs fills a prompt's arguments from the typed text.
func PromptArgs(pr mcp.PromptInfo, text string) (map[string]string, error) {
	args := map[string]string{}
	known := map[string]bool{}
	for _, a := range pr.Arguments {
		known[a.Name] = true
	}
	var positional []string
	for _, w := range projectctx.SplitArgs(text) {
		if k, v, ok := strings.Cut(w, "="); ok && known[k] {
			args[k] = v
			continue
		}
		positional = append(positional, w)
	}
	for _, a := range pr.Arguments {
		if len(positional) == 0 {
			break
		}
		if _, set := args[a.Name]; !set {
			args[a.Name], positional = positional[0], positional[1:]
		}
	}
	if len(positional) > 0 {
		return nil, fmt.Errorf("too many arguments (%s)", strings.Join(positional, " "))
	}
	var missing []string
	for _, a := range pr.Arguments {
		if a.Required && args[a.Name] == "" {
			missing = append(missing, a.Name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	return args, nil
}
