// Package app assembles one codewhale session from the resolved
// configuration: the tools' shared services, the sub-agent manager, the
// durable task runner and the engine options, and runs it through one
// lifecycle (New, Start, RunTurn, Close; host.go). The TUI, `codewhale
// exec`, `init`, ACP, durable tasks and sub-agents all build and start
// their engines here, so every host runs the same agent.
package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/checkpoint"
	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/hooks"
	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/mcp"
	"github.com/codewhale/codewhale/internal/permissions"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/tools/tasks"
	"github.com/codewhale/codewhale/internal/toolset"
)

// Options describe the host.
type Options struct {
	Version     string
	Interactive bool // a person can answer approval prompts
	AutoApprove bool // exec --auto: approve every prompt
	Mode        *posture.Mode
	Posture     *posture.Posture
	SessionID   string
	// RunTasks attaches a runner so queued durable tasks execute in this
	// process (interactive sessions; exec leaves them queued for later).
	RunTasks bool
	// HoldRuns keeps what RunTasks would start — queued tasks and due
	// automations — waiting until the host calls ReleaseRuns, so a person
	// sees StartupNotices' list of them before any of them runs (the TUI
	// releases after its first frame).
	HoldRuns bool
	// NoMCP leaves MCP servers unstarted (provider-free receipts).
	NoMCP bool
	// NoJournal keeps the session in memory only (receipts, sub-agents).
	NoJournal bool
	// Executable is the codewhale binary, which serves the hidden helper
	// entry points (the jobs watchdog); "" starts no watchdog.
	Executable string
	// Hooks says which hooks run (zero: none, for receipts and tests).
	Hooks hooks.Use
	// MCPServers are servers the host was handed for this session (an
	// ACP client's session/new mcpServers), started beside mcp.json's.
	MCPServers []mcp.ServerConfig
}

// App is one running session's wiring.
type App struct {
	Cfg      *config.Config
	Opts     Options
	Services *toolset.Services
	Tasks    *tasks.Store
	// TasksReport describes what loading the task store had to repair.
	// StartupNotices are the lines hosts show at start: each finding of the
	// task store (quarantined and refused records are never silent) and
	// sub-agent records a gone process left running.
	TasksReport    string
	StartupNotices []string
	Agents         *agent.Manager
	Jobs           *jobs.Manager
	// Sandbox confines every command the session runs (Bash, Run, task
	// gates, sub-agents' and tasks' commands alike).
	Sandbox *sandbox.Sandbox
	MCP     *mcp.Pool
	Journal *session.Journal
	// Permissions are the persistent rules (global and project
	// permissions.toml).
	Permissions *permissions.Set
	// Automations is the scheduled-work store; Scheduler runs it in a
	// process that runs tasks (nil otherwise).
	Automations *auto.Store
	Scheduler   *auto.Scheduler
	// Checkpoints records every turn's file changes (nil without git; the
	// reason is CheckpointsOff).
	Checkpoints    *checkpoint.Recorder
	CheckpointsOff string
	cpState
	project projectState
	types   typesMemo
	// route is the route of the next client when /provider switched it
	// (nil: Cfg's).
	route atomic.Pointer[config.Config]
	// LSP is the session's language servers (shared with sub-agents and
	// tasks); Close shuts them down.
	LSP *lsp.Manager
	// Hooks runs the user's hooks (nil: none configured).
	// HookNotices are lines for the host to show at start: untrusted
	// project hooks, failed shell_env hooks.
	Hooks       *hooks.Runner
	HookNotices []string

	// session is the engine Start runs; Close stops it first.
	session *loop

	// released closes when HoldRuns' runs may start (ReleaseRuns).
	released    chan struct{}
	releaseOnce sync.Once

	ctx    context.Context
	cancel context.CancelFunc
}

// New wires a session. Errors are configuration errors the user must fix.
func New(cfg *config.Config, o Options) (*App, error) {
	a := &App{Cfg: cfg, Opts: o}
	rules, err := permissions.Load(filepath.Join(cfg.Home, permissions.FileName), cfg.Workspace)
	if err != nil {
		return nil, err
	}
	a.Permissions = rules
	secrets.Configure(SecretsPolicy(cfg))
	a.ctx, a.cancel = context.WithCancel(context.Background())
	if o.SessionID == "" {
		o.SessionID = engine.NewUUID()
		a.Opts.SessionID = o.SessionID
	}
	a.Services = toolset.NewServices(toolset.Options{Workspace: cfg.Workspace, Home: cfg.Home, SessionID: o.SessionID,
		Model: cfg.Model, MemoryEnabled: cfg.MemoryEnabled})
	a.Sandbox = newSandbox(cfg, o.Executable)
	hookEnv, err := a.openHooks(o.Hooks)
	if err != nil {
		return nil, err
	}
	jm, err := jobs.NewManager(jobs.Options{StateDir: jobsStateDir(cfg), Env: append([]string{"GIT_TERMINAL_PROMPT=0"}, hookEnv...),
		Sandbox: a.Sandbox, Watchdog: o.Executable, Workspace: cfg.Workspace})
	if err != nil {
		return nil, fmt.Errorf("starting the job manager: %w", err)
	}
	a.Jobs = jm
	if a.LSP, err = newLSP(cfg, a.Sandbox); err != nil {
		jm.Close()
		return nil, err
	}
	a.Services.LSP = a.LSP
	a.Services.Jobs, a.Services.TestCommand = jm, cfg.File.TestCommand
	a.Services.ApplyPatch, a.Services.GuardPaths = cfg.ApplyPatch, []string{cfg.Path}
	if cfg.Web.Enabled {
		a.Services.Web = newWeb(cfg, a.Services.Handles)
	}
	a.Services.GitHubHosts, a.Services.Network = cfg.GitHubHosts, cfg.Web.Policy
	store, report, err := tasks.Open(tasks.DefaultDir(cfg.Env))
	if err != nil {
		return nil, fmt.Errorf("opening the task store: %w", err)
	}
	a.Tasks, a.TasksReport, a.StartupNotices = store, report.String(), report.Lines()
	a.Services.Tasks = store
	a.Agents = agent.NewManager(agent.Options{Spawner: agent.SpawnFunc(a.spawnChild), MaxConcurrent: cfg.MaxSubagents,
		MaxAdmitted: cfg.MaxAdmitted, TranscriptDir: filepath.Join(cfg.Home, "agents"), Types: a.agentTypes,
		DefaultModel: a.agentModel(), Bound: a.sessionAuthority})
	if cfg.Subagents {
		a.Services.Agents = a.Agents
	}
	if fixed, err := agent.ReconcileDir(filepath.Join(cfg.Home, "agents")); len(fixed) > 0 || err != nil {
		a.StartupNotices = append(a.StartupNotices, agentsNotice(fixed, err))
	}
	if !o.NoJournal {
		a.Journal = session.NewJournal(cfg.Home, session.OptionsFrom(cfg))
	}
	a.MCP = mcp.NewPool(cfg.MCPConfigPath, mcp.Options{ClientVersion: o.Version, Dir: cfg.Workspace, Network: cfg.Web.Policy,
		Project: mcpProject(cfg), Client: o.MCPServers, Tokens: config.MCPTokens{Home: cfg.Home}})
	if line := a.MCP.Project().Line(); line != "" && !o.NoMCP {
		a.StartupNotices = append(a.StartupNotices, line)
	}
	if !o.NoMCP {
		// Servers connect in the background from now on; the first turn's
		// tool factory waits for them at most their connect timeout.
		go a.MCP.Start(a.ctx)
		a.Services.Extra = a.registerMCP
		a.Services.MCPInfo = a.MCP.Info
	}
	if err := a.openAutomations(); err != nil {
		return nil, err
	}
	if o.RunTasks {
		// What starts the moment the runner attaches is listed first,
		// each run with its authority, for the person to see.
		starting := startingRuns(store, a.Automations)
		a.released = make(chan struct{})
		switch err := store.AttachRunnerAfter(a.ctx, a.runTask, 2, a.released); {
		case errors.Is(err, tasks.ErrRunnerElsewhere):
			// Another session runs the queue (and the automation
			// scheduler): this one leaves both to it.
			a.Opts.RunTasks = false
			a.TasksReport = strings.TrimSpace(a.TasksReport + "\n" + err.Error() + "; tasks queued here run there")
		case err != nil:
			return nil, err
		default:
			if starting != "" {
				a.StartupNotices = append(a.StartupNotices, starting)
			}
			a.newScheduler()
			if !o.HoldRuns {
				a.ReleaseRuns()
			}
		}
	}
	if !o.NoJournal {
		a.openCheckpoints()
	}
	a.Services.RLM = a.newRLM()
	a.Services.Skills = func() *projectctx.State { return a.Project().State() }
	return a, nil
}

// ReleaseRuns lets the runs HoldRuns held start: the task runner's workers
// (which claim nothing before, so a session closed first leaves every task
// queued) and the automation scheduler. Calling it again, or on an
// App that runs no tasks, does nothing.
func (a *App) ReleaseRuns() {
	if a.released == nil || !a.Opts.RunTasks {
		return
	}
	a.releaseOnce.Do(func() {
		close(a.released)
		go a.Scheduler.Run(a.ctx)
	})
}

func agentsNotice(fixed []string, err error) string {
	msg := fmt.Sprintf("%d sub-agent record(s) said running for a process that is gone; marked interrupted: %s",
		len(fixed), strings.Join(fixed, ", "))
	if err != nil {
		msg += fmt.Sprintf(" (some records could not be checked: %v)", err)
	}
	return msg
}

// agentSettle bounds how long stopping waits for cancelled sub-agents to
// record their end.
const agentSettle = 3 * time.Second

// StopAgents ends the session's sub-agents: it waits up to wait for the
// live ones to finish, then cancels the rest and returns them, each with
// its record settled (CONTRACT.md §13.2, `--wait-agents`).
func (a *App) StopAgents(ctx context.Context, wait time.Duration) []agent.Cancelled {
	return a.Agents.Drain(ctx, wait, agentSettle)
}

// Close stops the session engine (a running turn is cancelled), then
// sub-agents, the task runner, every running Bash job, the language servers
// and the MCP servers.
func (a *App) Close() {
	if a.session != nil {
		a.session.stop(engineStopWait)
	}
	a.Agents.Drain(context.Background(), 0, agentSettle)
	if a.Services.RLM != nil {
		a.Services.RLM.Close()
	}
	a.Tasks.Close()
	a.Jobs.Close()
	a.LSP.Close()
	if a.Hooks != nil {
		a.Hooks.Close()
	}
	a.cancel()
	_ = a.MCP.Close()
	if a.Journal != nil {
		_ = a.Journal.Close()
	}
}

// registerMCP adds the connected servers' tools to a turn's registry,
// waiting (bounded by each server's connect timeout) for servers still
// starting.
func (a *App) registerMCP(reg *tools.Registry, _ engine.TurnEnv) {
	a.MCP.Start(a.ctx)
	for _, t := range a.MCP.Tools() {
		reg.Register(t)
	}
}

// mcpProject is where the session's pool reads the workspace's .mcp.json
// (CONTRACT.md §12.5): none under --no-project-config.
func mcpProject(cfg *config.Config) mcp.Project {
	if cfg.NoProjectConfig || cfg.Workspace == "" {
		return mcp.Project{}
	}
	return mcp.Project{Workspace: cfg.Workspace, Home: cfg.Home}
}

// SecretsPolicy is what counts as a secret for a session under cfg: the real
// CodeWhale home (a custom CODEWHALE_HOME included), the config file the run
// loaded, and the configured API key (read at each use, so a key set later
// in the session is redacted too); the children codewhale starts keep the
// variables [shell] env_passthrough names, as commands do.
func SecretsPolicy(cfg *config.Config) *secrets.Policy {
	others := cfg.OtherKeys() // /provider may switch to any of them
	return secrets.New(secrets.Options{Home: cfg.Home, ConfigFiles: []string{cfg.Path},
		Keys: func() []string { return append([]string{cfg.APIKey}, others...) }, EnvPassthrough: cfg.Sandbox.EnvPassthrough})
}

// newSandbox is the session's command sandbox. Its tmp/ under
// codewhale's home, and the build caches that do not exist yet (below the
// home only), are created here so the policy can name them.
func newSandbox(cfg *config.Config, exe string) *sandbox.Sandbox {
	_ = os.MkdirAll(filepath.Join(cfg.Home, "tmp"), 0o700)
	if cfg.Sandbox.Mode == sandbox.WorkspaceWrite {
		sandbox.CreateCaches(cfg.Sandbox.BuildCaches, cfg.Sandbox.CacheBases)
	}
	return sandbox.New(sandbox.DefaultPolicy(cfg.SandboxDefaults()),
		sandbox.Options{EnvPassthrough: cfg.Sandbox.EnvPassthrough, Helper: exe})
}

// jobsStateDir is the per-workspace directory of the job state files that
// let a later session list (and stop) what a crashed one left running.
func jobsStateDir(cfg *config.Config) string {
	sum := sha256.Sum256([]byte(cfg.Workspace))
	return filepath.Join(cfg.Home, "jobs", hex.EncodeToString(sum[:8]))
}

// posture is the session's effective posture.
func (a *App) posture() posture.Posture {
	if a.Opts.Posture != nil {
		return *a.Opts.Posture
	}
	return a.Cfg.Posture
}

func (a *App) mode() posture.Mode {
	if a.Opts.Mode != nil {
		return *a.Opts.Mode
	}
	return a.Cfg.Mode
}

// NewClient builds the provider client for model.
func (a *App) NewClient(model string) (*provider.Client, error) {
	ctx, cancel := context.WithTimeout(a.ctx, time.Minute) // bounds the model list a route without a model asks for
	defer cancel()
	return a.Route().NewClient(ctx, model, "codewhale/"+a.Opts.Version)
}

// Route is the configuration of the route in force: the configured one, or
// the provider /provider switched to.
func (a *App) Route() *config.Config {
	if r := a.route.Load(); r != nil {
		return r
	}
	return a.Cfg
}

// SwitchRoute makes provider id the route of the next client (the
// provider's own entry: flags and CODEWHALE_BASE_URL belonged to the
// starting route).
func (a *App) SwitchRoute(id string) (*config.Config, error) {
	r, err := a.Cfg.Route(id)
	if err != nil {
		return nil, err
	}
	a.route.Store(r)
	return r, nil
}

// EngineOptions are the options of the session's own engine.
func (a *App) EngineOptions() engine.Options {
	cfg := a.Cfg
	p := a.posture()
	full := p == posture.FullAccess
	return engine.Options{
		Workspace:          cfg.Workspace,
		Sandbox:            a.Sandbox,
		Session:            &engine.Session{ID: a.Opts.SessionID},
		Mode:               a.mode(),
		Posture:            p,
		AllowShell:         cfg.AllowShell || full || a.Opts.AutoApprove,
		Trust:              full || a.Opts.AutoApprove,
		TrustedRoots:       cfg.WorkspaceTrust,
		TrustedPaths:       cfg.TrustedPaths,
		Interactive:        a.Opts.Interactive,
		AutoApprove:        a.Opts.AutoApprove,
		MaxSteps:           cfg.MaxSteps,
		Model:              cfg.Model,
		ReasoningEffort:    cfg.ReasoningEffort,
		StrictTools:        cfg.StrictTools,
		AlwaysLoad:         cfg.AlwaysLoad,
		Permissions:        a.Permissions,
		NewClient:          a.NewClient,
		Tools:              a.Services.Toolset,
		SystemPrompt:       a.systemPrompt,
		WorkState:          a.Services.WorkState,
		BackgroundNotices:  a.notices,
		TurnStart:          a.turnStart,
		Hooks:              a.engineHooks(),
		Journal:            a.journal(),
		Checkpoints:        a.engineCheckpoints(),
		AutoCompactPercent: a.autoCompactPercent(),
	}
}

// journal is the engine's Journal, or nil (a nil *session.Journal must not
// become a non-nil interface).
func (a *App) journal() engine.Journal {
	if a.Journal == nil {
		return nil
	}
	return a.Journal
}

// autoCompactPercent is the configured threshold (default 80); 0 when
// auto-compaction is switched off.
func (a *App) autoCompactPercent() int {
	f := a.Cfg.File
	if f.AutoCompact != nil && !*f.AutoCompact {
		return 0
	}
	if f.AutoCompactPercent > 0 {
		return min(f.AutoCompactPercent, 99)
	}
	return 80
}

// notices gathers runtime news for the model: finished background jobs
// and sub-agents, and what the language servers found in files commands
// changed, each reported once.
func (a *App) notices() string {
	var parts []string
	if f := a.Jobs.FinishedSinceLastAsked(); f.Text != "" {
		parts = append(parts, f.Text)
	}
	if n := a.Agents.Completed(); n != "" {
		parts = append(parts, n)
	}
	if n := a.lspNotices(); n != "" {
		parts = append(parts, n)
	}
	return strings.Join(parts, "\n")
}

// recordTaskCall keeps a task's tool call in its record.
func (a *App) recordTaskCall(id string, ev engine.Event) {
	c, ok := ev.(engine.ToolCallComplete)
	if !ok {
		return
	}
	_ = a.Tasks.RecordToolCall(id, tasks.ToolCallRecord{ID: c.ID, Name: c.Name, Input: c.Input,
		Success: c.Result.Success, Refused: c.Result.IsError, Category: c.Result.Category,
		Summary: engine.Describe(c.Name, c.Input) + " → " + c.Result.Content, At: c.CompletedAt})
}

// runTask executes a queued durable task as a headless agent turn.
func (a *App) runTask(ctx context.Context, t tasks.TaskRecord) (string, error) {
	opts := a.EngineOptions()
	opts.Checkpoints = nil // the parent turn's recording covers what its children change
	opts.Hooks = a.childHooks()
	opts.Session = &engine.Session{ID: t.ID}
	opts.Journal = nil
	// A task runs headless with no more than its creator's authority
	// (tasks.Authority): its posture, and the flags the creator could give.
	auth := t.RunAuthority()
	opts.Interactive = false
	opts.Posture, _ = posture.Parse(auth.Posture)
	opts.AutoApprove, opts.AllowShell, opts.Trust = auth.AutoApprove, auth.AllowShell, auth.Trust
	if m, err := posture.ParseMode(t.Mode); err == nil {
		opts.Mode = m
	}
	if t.Model != "" {
		opts.Model = t.Model
	}
	svc := toolset.NewServices(toolset.Options{Workspace: a.Cfg.Workspace, Home: a.Cfg.Home, SessionID: t.ID, Model: opts.Model})
	svc.Tasks, svc.Jobs, svc.TestCommand = a.Tasks, a.Jobs, a.Cfg.File.TestCommand
	svc.ApplyPatch, svc.GuardPaths = a.Services.ApplyPatch, a.Services.GuardPaths
	svc.Web, svc.Handles, svc.LSP = a.Services.Web, a.Services.Handles, a.Services.LSP
	svc.GitHubHosts, svc.Network = a.Services.GitHubHosts, a.Services.Network
	svc.Extra, svc.MCPInfo = a.Services.Extra, a.Services.MCPInfo
	svc.Skills = a.Services.Skills
	opts.Tools, opts.WorkState, opts.BackgroundNotices = svc.Toolset, svc.WorkState, nil
	l := run(ctx, engine.New(opts))
	defer l.cancel()
	eng := l.eng
	// The user approved the create call that recorded this prompt and its
	// (capped) flags, so the run carries that authority. Every call it
	// makes, refusals included, goes into the task's tool_calls.
	reply, err := eng.RunTurn(ctx, engine.SendMessage{Content: t.Prompt, Provenance: engine.ProvenanceUser},
		func(ev engine.Event) { a.recordTaskCall(t.ID, ev) })
	if err != nil {
		return reply.Text, fmt.Errorf("task turn: %w", err)
	}
	if reply.Done.Status != engine.TurnCompleted {
		msg := reply.Done.Error
		if msg == "" {
			msg = string(reply.Done.Status)
		}
		return reply.Text, fmt.Errorf("task turn %s", msg)
	}
	return reply.Text, nil
}
