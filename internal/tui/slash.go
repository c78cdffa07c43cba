package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tui/commands"
	"github.com/codewhale/codewhale/internal/tui/history"
	"github.com/codewhale/codewhale/internal/tui/services"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// handler runs one slash command with its (trimmed) argument.
type handler func(m *Model, arg string) tea.Cmd

// historyCommand runs a command of the history child.
func historyCommand(run func(*history.History, history.Host, string) tea.Cmd) handler {
	return func(m *Model, arg string) tea.Cmd { return run(m.history, m.hhost, arg) }
}

// servicesCommand runs a command of the services child.
func servicesCommand(run func(*services.Services, services.Host, string) tea.Cmd) handler {
	return func(m *Model, arg string) tea.Cmd { return run(m.services, m.hhost, arg) }
}

// slashCommand is a registry row with its handler.
type slashCommand struct {
	commands.Command
	run handler
}

// slashCommands is the built-in command table (CONTRACT.md §14.7). Commands the
// port does not implement are absent, so they answer Unknown command.
var slashCommands = []slashCommand{
	{commands.Command{Name: "tools", Aliases: []string{"tool-studio"}, Usage: "[text|json]",
		Help: "the latest prepared tool request, in a pager"}, (*Model).toolsCommand},
	{commands.Command{Name: "jobs", Aliases: []string{"job", "zuoye"},
		Usage: "[list|show <id>|poll <id>|wait <id>|stdin <id> <input>|close-stdin <id>|cancel <id>|cancel-all]",
		Help:  "inspect and control live Bash jobs"}, func(m *Model, arg string) tea.Cmd { return m.jobsv.Command(arg) }},
	{commands.Command{Name: "mode", Aliases: []string{"jihua", "zidong"}, Usage: "[act|plan|operate|1|2|3]",
		Help: "switch mode; no argument opens the mode picker"}, func(m *Model, arg string) tea.Cmd { return m.switches.Mode(m.hhost, arg) }},
	{commands.Command{Name: "model", Aliases: []string{"moxing", "route"}, Usage: "[name|refresh]",
		Help: "show or switch the model; no argument opens the model picker (the server's list), refresh asks again"}, func(m *Model, arg string) tea.Cmd { return m.routes.Model(m.hhost, arg) }},
	{commands.Command{Name: "provider", Usage: "[id [model]]",
		Help: "switch the provider (and model) for the next turn; no argument opens the provider picker"}, func(m *Model, arg string) tea.Cmd { return m.routes.Provider(m.hhost, arg) }},
	{commands.Command{Name: "help", Aliases: []string{"?", "bangzhu", "帮助"}, Usage: "[command]",
		Help: "commands, concepts and key bindings"}, (*Model).helpCommand},
	{commands.Command{Name: "clear", Aliases: []string{"qingping"}, Help: "clear the conversation (new empty session)"},
		resetCommand("Clear", "Conversation cleared; a new session started.")},
	{commands.Command{Name: "new", Usage: "[--force]", Help: "start a fresh session"}, resetCommand("Starting a new session", "Started a new session.")},
	{commands.Command{Name: "compact", Aliases: []string{"yasuo"}, Usage: "[focus]",
		Help: "summarise older context now"}, func(m *Model, arg string) tea.Cmd { return m.compact(arg) }},
	{commands.Command{Name: "sessions", Aliases: []string{"resume"}, Usage: "[show|open <id>|prune <days>|archived|archive <id>|unarchive <id>]",
		Help: "session picker (d delete, a archive); resume a saved session"}, historyCommand((*history.History).Sessions)},
	{commands.Command{Name: "exit", Aliases: []string{"quit", "q", "tuichu"}, Help: "quit"}, func(m *Model, _ string) tea.Cmd { return m.quit() }},
	{commands.Command{Name: "effort", Aliases: []string{"thinking", "reasoning", "reason"},
		Usage: "[auto|off|low|high|max]", Help: "reasoning effort"}, func(m *Model, arg string) tea.Cmd { return m.switches.Effort(m.hhost, arg) }},
	{commands.Command{Name: "trust", Aliases: []string{"xinren"}, Usage: "[on|off|add <path>|remove <path>|list]",
		Help: "trust mode and trusted paths; bare reports"}, servicesCommand((*services.Services).Trust)},
	{commands.Command{Name: "status", Help: "runtime session status"}, (*Model).statusCommand},
	{commands.Command{Name: "undo", Usage: "[n] [--force]", Help: "take back the file changes of the last turn (or n turns), and if you choose the turn itself"},
		historyCommand((*history.History).Undo)},
	{commands.Command{Name: "restore", Help: "pick a turn and restore the workspace (and if you choose the conversation) to before it"},
		historyCommand((*history.History).Restore)},
	{commands.Command{Name: "retry", Help: "send the last message again (undoing its file changes first, if you choose)"},
		historyCommand((*history.History).Retry)},
	{commands.Command{Name: "edit", Help: "edit an earlier message in a fork of the conversation (also Esc Esc)"}, historyCommand((*history.History).Edit)},
	{commands.Command{Name: "fork", Usage: "[title]", Help: "continue in a copy of this session; the original stays"}, historyCommand((*history.History).Fork)},
	{commands.Command{Name: "rename", Usage: "<title>", Help: "set this session's title"}, historyCommand((*history.History).Rename)},
	{commands.Command{Name: "attach", Usage: "[path|clear]",
		Help: "attach an image (PNG, JPEG, GIF, WebP) to the next message; no path reads the clipboard"}, func(m *Model, arg string) tea.Cmd { return m.attach.Command(m.hhost, arg) }},
	{commands.Command{Name: "export", Usage: "[markdown|json] [path]", Help: "write the transcript to a file"}, historyCommand((*history.History).Export)},
	{commands.Command{Name: "diff", Usage: "[n]", Help: "everything this session changed in the workspace, in a pager"},
		historyCommand((*history.History).Diff)},
	{commands.Command{Name: "permissions", Usage: "[list|explain <n>|remove <n>]",
		Help: "the saved permission rules: list, explain, remove"}, servicesCommand((*services.Services).Permissions)},
	{commands.Command{Name: "automations", Aliases: []string{"automation"}, Usage: "[list|show <id>|pause <id>|resume <id>|delete <id>]",
		Help: "scheduled work: list, inspect, pause, resume, delete"}, servicesCommand((*services.Services).Automations)},
	{commands.Command{Name: "tokens", Help: "token usage for the session"}, func(m *Model, _ string) tea.Cmd { m.system(m.meter.TokensReport(m.route.Model)); return nil }},
	{commands.Command{Name: "cost", Help: "session cost breakdown"}, func(m *Model, _ string) tea.Cmd {
		m.system(m.meter.CostReport(m.route.Model, m.meter.Children(m.o.Agents.UsageByModel())))
		return nil
	}},
	{commands.Command{Name: "verbose", Usage: "[on|off]", Help: "show full live reasoning in the transcript"},
		(*Model).verboseCommand},
	{commands.Command{Name: "config", Usage: "[<key> [<value>] [--save]]",
		Help: "show or change settings (--save writes config.toml)"}, func(m *Model, arg string) tea.Cmd { return m.settings.Config(m.hhost, arg) }},
	{commands.Command{Name: "settings", Usage: "[text]", Help: "the settings in force"}, func(m *Model, arg string) tea.Cmd { return m.settings.Show(m.hhost, arg) }},
	{commands.Command{Name: "context", Aliases: []string{"ctx"}, Usage: "[reload]",
		Help: "project instructions loaded (sizes, cuts), user commands and skills"}, servicesCommand((*services.Services).Context)},
	{commands.Command{Name: "skills", Usage: "[name]", Help: "the skills the model may load, with their sources"},
		servicesCommand((*services.Services).Skills)},
	{commands.Command{Name: "agents", Usage: "[list|show <name>|validate|trust]",
		Help: "the sub-agent types people defined: sources, tools, models, problems; trust the project's"}, servicesCommand((*services.Services).Agents)},
	{commands.Command{Name: "hooks", Aliases: []string{"hook"}, Usage: "[list|events|trust]",
		Help: "the hooks that run, their last results; trust the project's hooks.toml"}, servicesCommand((*services.Services).Hooks)},
	{commands.Command{Name: "lsp", Usage: "[list|restart [name]]",
		Help: "language servers: state, last error; restart"}, servicesCommand((*services.Services).LSP)},
	{commands.Command{Name: "mcp", Usage: "[list|reload [server]|login <server>|trust]",
		Help: "MCP servers: transport, state, tools/resources/prompts, last error; reconnect, sign in"}, servicesCommand((*services.Services).MCP)},
	{commands.Command{Name: "init", Usage: "[--force]", Help: "survey the repository and propose AGENTS.md (shown as a diff first)"},
		func(m *Model, arg string) tea.Cmd { return m.init.Command(m.hhost, arg) }},
	{commands.Command{Name: "queue", Aliases: []string{"queued"}, Usage: "[list|send <n>|edit <n>|drop <n>|clear]",
		Help: "manage queued messages"}, (*Model).queueCommand},
}

// builtinRows are the built-in commands' rows.
func builtinRows() []commands.Command {
	out := make([]commands.Command, len(slashCommands))
	for i, c := range slashCommands {
		out[i] = c.Command
	}
	return out
}

// runCommand dispatches a parsed slash command (CONTRACT.md §14.7): fixed mode
// aliases, the registry, retired names, then unknown.
func (m *Model) runCommand(inv commands.Invocation) tea.Cmd {
	m.tr.Bottom()
	if arg, ok := commands.ModeAlias(inv.Name); ok {
		return m.switches.Mode(m.hhost, arg)
	}
	if strings.HasPrefix(inv.Name, "mcp:") {
		return m.services.Prompt(m.hhost, inv)
	}
	if c, ok := m.table.Registry().Lookup(inv.Name); ok {
		for _, sc := range slashCommands {
			if sc.Name == c.Name {
				return sc.run(m, inv.Arg)
			}
		}
	}
	if c, ok := m.table.UserCommand(m.hhost, inv.Name); ok {
		return m.runUserCommand(c, inv.Arg)
	}
	if msg, ok := commands.Retired(inv.Name); ok {
		m.systemError(msg)
		return nil
	}
	m.systemError(m.table.Registry().Unknown(inv.Name))
	return nil
}

// Exact texts of /tools (CONTRACT.md §11.6, §14.9).
const (
	toolsUnavailable = "Tool request snapshot unavailable — no model request has been captured for the latest turn."
	toolsUsage       = "usage: /tools [text|json]"
)

func (m *Model) toolsCommand(arg string) tea.Cmd {
	switch a := strings.TrimSpace(arg); a {
	case "", "text", "json":
		if m.snapshot == nil {
			m.system(toolsUnavailable)
			return nil
		}
		if a == "json" {
			m.stack.Push(views.NewPager(m.theme, "Prepared Tool Request (JSON)", m.snapshot.JSON()))
		} else {
			m.stack.Push(views.NewPager(m.theme, "Prepared Tool Request", toolsText(m.snapshot)))
		}
	default:
		m.systemError(toolsUsage)
	}
	return nil
}

// toolsText is the snapshot's text with, right under its title line, the
// carried tool names in request order with their provenance, so the first
// screen says what the model was sent, even at 80×24 (issue 14: it named
// only the tools left out; issue 33: they came at row 24).
func toolsText(s *engine.ToolSnapshot) string {
	text := s.Text()
	head, rest, found := strings.Cut(text, "\n\n")
	if !found || len(s.Tools) == 0 {
		return text
	}
	names := make([]string, len(s.Tools))
	for i, t := range s.Tools {
		names[i] = t.Name.Value
		if t.Provenance.Known && t.Provenance.Value != "builtin" {
			names[i] += " (" + string(t.Provenance.Value) + ")"
		}
	}
	carried := fmt.Sprintf("Tools in this request (%d): %s", len(names), strings.Join(names, ", "))
	if s.OmittedToolCount > 0 {
		carried += fmt.Sprintf(" and %d more not rendered", s.OmittedToolCount)
	}
	title, facts, _ := strings.Cut(head, "\n")
	return title + "\n" + carried + "\n\n" + facts + "\n\n" + rest
}

func (m *Model) helpCommand(arg string) tea.Cmd {
	if strings.TrimSpace(arg) != "" {
		m.system(m.table.Registry().HelpText(arg))
		return nil
	}
	return m.open(helpView(m.theme, m.table.Registry()), "")
}

// resetCommand starts a fresh session (/clear, /new) and says done.
func resetCommand(what, done string) handler {
	return func(m *Model, _ string) tea.Cmd {
		if m.resetSession(what) {
			m.system(done)
		}
		return nil
	}
}

// resetSession swaps in a fresh session; it is refused while busy.
func (m *Model) resetSession(what string) bool {
	if m.turn.busy {
		m.systemError(what + " is locked while a turn is running — press Esc to interrupt first")
		return false
	}
	m.session = m.o.NewID()
	m.o.Engine.Submit(engine.SyncSession{Session: engine.Session{ID: m.session, Model: m.route.Model,
		Workspace: m.o.Workspace, Mode: m.mode}})
	m.tr.Clear()
	m.snapshot = nil
	m.queue.clear()
	m.meter.Reset()
	m.history.Reset()
	return true
}

// compact asks the engine to summarise older context now.
func (m *Model) compact(focus string) tea.Cmd {
	if m.turn.busy {
		return m.status.set(locked("Compaction"), sevWarning)
	}
	m.o.Engine.Submit(engine.CompactContext{Focus: strings.TrimSpace(focus)})
	return m.status.set(compactingText, sevInfo)
}
