// Package tui is codewhale's interactive terminal UI (CONTRACT.md §14): one Bubble
// Tea root model over the engine's event stream, with the transcript, the
// composer, a stack of modal views (approval card, pagers, pickers, help)
// and the status bar. The engine stays UI-free: the model sends ops and
// consumes batched events; cancelling calls the engine directly.
package tui

import (
	"io"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/checkpoint"
	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/hooks"
	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/mcp"
	"github.com/codewhale/codewhale/internal/mdterm"
	"github.com/codewhale/codewhale/internal/permissions"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/tui/attach"
	"github.com/codewhale/codewhale/internal/tui/commands"
	"github.com/codewhale/codewhale/internal/tui/composer"
	"github.com/codewhale/codewhale/internal/tui/handoff"
	"github.com/codewhale/codewhale/internal/tui/history"
	"github.com/codewhale/codewhale/internal/tui/initflow"
	"github.com/codewhale/codewhale/internal/tui/jobsview"
	"github.com/codewhale/codewhale/internal/tui/routes"
	"github.com/codewhale/codewhale/internal/tui/services"
	"github.com/codewhale/codewhale/internal/tui/settings"
	"github.com/codewhale/codewhale/internal/tui/slash"
	"github.com/codewhale/codewhale/internal/tui/switches"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/transcript"
	"github.com/codewhale/codewhale/internal/tui/usage"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// Engine is what the UI needs of the engine: ops in, events out, and the
// out-of-band cancel.
type Engine interface {
	Submit(engine.Op)
	Cancel()
	Events() <-chan engine.Event
}

// Route describes the model route for the header and /status.
type Route = routes.Route

// keyEnvOf is the variable a missing-key message asks for.
func keyEnvOf(r Route) string { return routes.KeyEnv(r) }

// Options configure the UI. Engine is required.
type Options struct {
	Engine    Engine
	Jobs      *jobs.Manager  // /jobs and Ctrl+B; nil lists no jobs
	Agents    *agent.Manager // sub-agents: cost by model (status line, /cost), launch pace (/jobs, /agents); nil: none
	Route     Route
	Workspace string
	// Home is CODEWHALE_HOME, where sessions are stored ("" = no /sessions).
	Home      string
	SessionID string
	Mode      posture.Mode
	Posture   posture.Posture
	// Sandbox confines the session's commands; the header chip and /status
	// report its real posture. Nil reports an unenforced workspace scope.
	Sandbox *sandbox.Sandbox
	// AllowShell is the configured allow_shell; Full Access turns shell on
	// regardless and leaving it restores this value.
	AllowShell    bool
	Prices        map[string]config.Price
	ContextWindow int
	// Routes switches providers and lists the route's models for
	// /provider and /model (nil: neither); Models is the starting route's
	// model table for the meters (nil: the built-in rows and Prices).
	Routes  Routes
	Models  *provider.ModelTable
	Version string
	// Prompt is sent as the first message once the UI is up ("" = none).
	Prompt string
	// Resume, when set, is a saved session to continue: it is handed to the
	// engine and its transcript rebuilt before anything else happens.
	Resume *session.Loaded
	// PickSession opens the session picker at start (`codewhale resume`
	// with no id), as Ctrl+R does.
	PickSession bool
	// Notices are shown once at start-up (e.g. task records the store
	// quarantined or refused).
	Notices []string
	// Shown, when set, is called once the first frame — the one that
	// draws Notices — is on the screen: the host holds the background
	// runs those notices list until then.
	Shown func()
	// Journal, when set, claims a session picked with /sessions before it is
	// resumed, so a session another process is writing is refused.
	Journal *session.Journal

	Theme *theme.Theme
	// Clipboard receives OSC 52 copy sequences (the terminal); nil drops
	// them.
	Clipboard io.Writer
	// TTY is the terminal itself, handed to the external editor on its
	// standard input, output and error: the UI's own output is wrapped
	// (lockedFile), and a child given the wrapper gets a pipe (vim stalls on
	// "Output is not to a terminal"). Nil fields fall back to Bubble Tea's.
	TTY TTY
	// Multiplexer is "tmux" or "screen" when the UI runs inside one ("" =
	// a plain terminal); it decides how a copy reaches the clipboard.
	Multiplexer string
	// Clock drives durations, toasts and the approval card's typing window.
	Clock func() time.Time
	// Frame is the minimum interval between event batches (DefaultFrame).
	Frame     time.Duration
	LowMotion bool
	// Files lists workspace files for @-mentions; nil walks Workspace.
	Files func() []string
	// ConfigPath is the user config file /config --save writes ("" = none).
	ConfigPath string
	// Settings are the effective settings for /settings and /config.
	Settings []config.Setting
	// Notify says when and how to tell the terminal that a turn ended or
	// an approval waits.
	Notify Notify
	// MouseCapture says the program captures the mouse (wheel scrolling);
	// Alt+S releases it for the terminal's own selection and takes it back.
	MouseCapture bool
	// Getenv reads $VISUAL and $EDITOR for the external editor and
	// WAYLAND_DISPLAY for the clipboard reader (nil =
	// os.Getenv).
	Getenv func(string) string
	// NewID makes session ids for /clear and /new.
	NewID func() string
	// Automations is the scheduled-work store for /automations (nil: none);
	// WakeScheduler tells this process's scheduler after a change.
	Automations *auto.Store
	// Permissions are the persistent rules for /permissions (nil: none).
	Permissions   *permissions.Set
	WakeScheduler func()
	// Checkpoints records each turn's file changes for /undo and /diff
	// (nil: off, CheckpointsOff says why).
	Checkpoints    *checkpoint.Recorder
	CheckpointsOff string
	// Project is the session's project instructions, user commands and
	// skills for /context, /skills and the command table (nil: none).
	Project *projectctx.Context
	// Hooks runs the user's hooks, for /hooks (nil: none configured).
	Hooks *hooks.Runner
	// LSP is the session's language servers, for /lsp (nil: off).
	LSP *lsp.Manager
	// MCP is the session's MCP servers, for /mcp, prompts as slash
	// commands and @server:uri mentions (nil: off).
	MCP *mcp.Pool
}

// Model is the root Bubble Tea model.
type Model struct {
	o        Options
	jobsv    *jobsview.Child    // /jobs
	settings *settings.Settings // /settings, /config
	switches *switches.Switches // mode, posture and effort changes
	routes   *routes.Child      // /provider, /model and the route's live model list
	theme    *theme.Theme
	now      func() time.Time
	w, h     int

	tr    *transcript.Transcript
	env   *transcript.Env
	comp  *composer.Composer
	table *slash.Table   // the command table: built-ins, MCP prompts, user commands
	init  *initflow.Init // /init: the survey in progress, the proposal awaiting an answer
	stack views.Stack
	sub   *subscription

	route    Route
	mode     posture.Mode
	posture  posture.Posture
	meter    usage.Meter
	snapshot *engine.ToolSnapshot
	session  string

	turn      turnState
	queue     queue
	outputs   *attach.Outputs  // outputs of local commands for the next message (shell.go)
	attach    *attach.Images   // images for the next message
	handoff   *handoff.Handoff // copies to the clipboard, the external editor
	status    statusLine
	notifier  notifier
	quitArmed time.Time
	lastKey   time.Time   // the last key pressed: a card opening within typingWindow opens without focus
	menu      *slash.Menu // the slash menu and @-mention list
	// modes are the UI's on/off states (modeRestored, modeCtrlX, …) as
	// one value.
	modes modeSet
	// history is the child for undo, restore, retry, edit, fork and
	// the session commands; hhost is the model as it sees it.
	history  *history.History
	services *services.Services // /agents, /automations, /permissions, /hooks, /lsp, /context
	hhost    childHost

	// highlighted receives a signal when a long code block finished
	// highlighting in the background; stop ends the wait at quit.
	highlighted, stop chan struct{}
}

// modeSet holds the model's on/off states, one bit each.
type modeSet uint16

const (
	// modeShown: Options.Shown was scheduled.
	modeShown modeSet = 1 << iota
	// modeRestored: the composer holds an interrupted prompt put back
	// (marked above the composer); it is edited like any draft and sent
	// once, by Enter.
	modeRestored
	// modeCtrlX: Ctrl+X was pressed, so Ctrl+E opens the editor.
	modeCtrlX
	// modeSelecting: selection mode, the mouse capture released.
	modeSelecting
	// modeBlurred: the terminal reported that it lost focus.
	modeBlurred
	// modeTicking: an animation tick is scheduled.
	modeTicking
	// modeQuitting: the model asked to quit.
	modeQuitting
	// modeClosed: the engine's event stream ended.
	modeClosed
)

func (s modeSet) has(b modeSet) bool { return s&b != 0 }

func (s *modeSet) set(b modeSet, on bool) {
	if on {
		*s |= b
	} else {
		*s &^= b
	}
}

// New builds the model.
func New(o Options) *Model {
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Theme == nil {
		o.Theme = theme.New(theme.Detect(nil))
	}
	if o.Frame <= 0 {
		o.Frame = DefaultFrame
	}
	if o.NewID == nil {
		o.NewID = engine.NewUUID
	}
	if o.Route.Provider == "" {
		o.Route.Provider = "deepseek"
	}
	m := &Model{o: o, theme: o.Theme, now: o.Clock, route: o.Route, mode: o.Mode, posture: o.Posture,
		session: o.SessionID, w: 80, h: 24, status: statusLine{now: o.Clock}}
	m.env = &transcript.Env{Theme: o.Theme, Markdown: mdterm.New(o.Theme.Profile, o.Theme.Color, o.Theme.Dark), Now: o.Clock,
		LowMotion: o.LowMotion}
	m.env.Markdown.SetHyperlinks(o.Theme.Hyperlinks)
	m.tr = transcript.New(m.env)
	m.highlighted, m.stop = make(chan struct{}, 1), make(chan struct{})
	m.env.Markdown.SetNotify(func() {
		select {
		case m.highlighted <- struct{}{}:
		default: // a redraw is already due
		}
	})
	m.comp = composer.New(o.Theme)
	m.notifier = notifier{Notify: o.Notify, out: o.Clipboard, mux: o.Multiplexer}
	var resources func() []mcp.ResourceRef
	if o.MCP != nil {
		resources = o.MCP.Resources
	}
	m.menu = slash.New(slash.Config{Theme: o.Theme, Composer: m.comp, Resources: resources, Files: o.Files,
		Workspace: o.Workspace, Commands: func() *commands.Registry { m.table.Sync(m.hhost); return m.table.Registry() }})
	m.history = history.New(history.Config{Theme: o.Theme, Submit: o.Engine.Submit, Now: o.Clock, NewID: o.NewID,
		Checkpoints: o.Checkpoints, CheckpointsOff: o.CheckpointsOff, Home: o.Home, Workspace: o.Workspace, Journal: o.Journal})
	m.hhost = childHost{m}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	m.handoff = handoff.New(handoff.Config{Clipboard: o.Clipboard, Multiplexer: o.Multiplexer, Getenv: getenv,
		In: o.TTY.In, Out: o.TTY.Out})
	m.init = initflow.New(o.Theme, o.Workspace)
	m.switches = switches.New(switches.Config{Theme: o.Theme, Submit: o.Engine.Submit, AllowShell: o.AllowShell})
	m.jobsv = jobsview.New(o.Theme, o.Jobs, o.Agents)
	m.settings = settings.New(o.ConfigPath, o.Settings)
	m.routes = routes.New(routes.Config{Theme: o.Theme, Routes: o.Routes, Submit: o.Engine.Submit})
	m.outputs = attach.NewOutputs(o.Theme)
	m.attach = attach.New(attach.Config{Theme: o.Theme, Workspace: o.Workspace, Home: o.Home, Getenv: getenv})
	m.services = services.New(services.Config{Theme: o.Theme, Workspace: o.Workspace, Home: o.Home, Submit: o.Engine.Submit, Project: o.Project, Agents: o.Agents,
		Automations: o.Automations, WakeScheduler: o.WakeScheduler, Permissions: o.Permissions, Hooks: o.Hooks, LSP: o.LSP, MCP: o.MCP,
		Prompts: func(name string) (string, mcp.PromptInfo, bool) { return m.table.Prompt(name) }})
	m.table = slash.NewTable(builtinRows(), o.Project, o.MCP)
	m.table.Sync(m.hhost)
	m.meter = usage.Meter{Prices: o.Prices, Window: o.ContextWindow, Table: o.Models, FirstParty: provider.IsFirstParty(o.Route.BaseURL)}
	m.sub = &subscription{ch: o.Engine.Events(), frame: o.Frame}
	m.comp.SetPlaceholder(placeholder(o.Mode))
	if !o.Route.HasKey {
		m.tr.Add(transcript.NewCell(transcript.Notice, noKeyText(o.Route)))
	}
	for _, n := range o.Notices {
		m.tr.Add(transcript.NewCell(transcript.Notice, n))
	}
	return m
}

// Init starts the event subscription and sends the first prompt, if any.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.sub.next(), waitHighlighted(m.highlighted, m.stop)}
	if l := m.o.Resume; l != nil {
		cmds = append(cmds, history.Loaded(l))
	}
	if m.o.PickSession && m.o.Resume == nil {
		cmds = append(cmds, m.history.OpenSessions(m.hhost))
	}
	if m.o.Prompt != "" {
		prompt := m.o.Prompt
		cmds = append(cmds, func() tea.Msg { return submitMsg{text: prompt} })
	}
	return tea.Batch(cmds...)
}

// shownAfter is how long after the first size the first frame is surely
// on the screen: the renderer writes the view it was given at its next
// tick (60 a second).
const shownAfter = 50 * time.Millisecond

// submitMsg sends text as if typed and entered.
type submitMsg struct{ text string }

// Update dispatches a message to its handler.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return m, m.handleKey(msg)
	case tea.MouseMsg:
		return m, m.handleMouse(msg)
	case tea.WindowSizeMsg:
		m.w, m.h = max(msg.Width, 20), max(msg.Height, 8)
		m.comp.SetWidth(m.w)
		if m.o.Shown == nil || m.modes.has(modeShown) {
			return m, nil
		}
		m.modes.set(modeShown, true) // Options.Shown once, after the first frame is drawn
		return m, tea.Tick(shownAfter, func(time.Time) tea.Msg { m.o.Shown(); return nil })
	case eventsMsg:
		return m, m.handleEvents(msg)
	case tickMsg: // the spinner's next frame; the tick stops when nothing moves
		m.modes.set(modeTicking, false)
		m.env.Tick()
		return m, m.ensureTick()
	case submitMsg:
		return m, m.submitText(msg.text)
	case tea.BlurMsg:
		m.modes.set(modeBlurred, true)
		return m, nil
	case tea.FocusMsg:
		m.modes.set(modeBlurred, false)
		return m, nil
	case expireMsg:
		return m, nil // re-render so an expired toast disappears
	case highlightedMsg:
		m.tr.Invalidate()
		return m, waitHighlighted(m.highlighted, m.stop)
	case signalMsg:
		return m, m.quit()
	default:
		if cmd, ok := m.menu.Update(msg); ok {
			return m, cmd
		}
		if cmd, ok := m.services.Update(m.hhost, msg); ok {
			return m, cmd
		}
		if cmd, ok := m.handoff.Update(m.hhost, msg); ok {
			return m, cmd
		}
		if cmd, ok := m.jobsv.Update(m.hhost, msg); ok {
			return m, cmd
		}
		if cmd, ok := m.routes.Update(m.hhost, msg); ok {
			return m, cmd
		}
		if cmd, ok := m.attach.Update(m.hhost, msg); ok {
			return m, cmd
		}
		if cmd, ok := m.history.Update(m.hhost, msg); ok {
			return m, cmd
		}
		return m, m.handleOther(msg)
	}
}

// highlightedMsg says code blocks finished highlighting: redraw.
type highlightedMsg struct{}

// waitHighlighted waits for the next background highlighting to finish,
// or for quit.
func waitHighlighted(hl, stop <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-hl:
			return highlightedMsg{}
		case <-stop:
			return nil
		}
	}
}

// quit stops the program; the caller of Run shuts the engine down.
func (m *Model) quit() tea.Cmd {
	if !m.modes.has(modeQuitting) {
		close(m.stop)
	}
	m.modes.set(modeQuitting, true)
	return tea.Quit
}

// Quitting reports whether the model asked to quit.
func (m *Model) Quitting() bool { return m.modes.has(modeQuitting) }

// placeholder is the empty composer's hint in mode.
func placeholder(mode posture.Mode) string {
	if mode == posture.Operate {
		return "Describe the goal — Codewhale keeps working until it's done"
	}
	return "Write a task or use /."
}

// noKeyText is the banner shown when no API key was found.
func noKeyText(r Route) string {
	env, set, where := keyEnvOf(r), "codewhale auth set", "api_key = \"sk-…\" in ~/.codewhale/config.toml"
	if r.Provider != "deepseek" {
		set += " --provider " + r.Provider
		where = "api_key under [providers." + r.Provider + "] in ~/.codewhale/config.toml"
	}
	return "No API key found for " + config.ProviderDisplayName(r.Provider) + ". To start chatting, set one and restart:\n" +
		"• export " + env + "=sk-…\n" +
		"• " + set + "   (stores it in $CODEWHALE_HOME/secrets)\n" +
		"• " + where + "\n" +
		"Local commands (/help, /tools, /jobs, /mode, /status) work without a key."
}
