// Package toolset assembles the registry of built-in tools for one turn from
// the session's services, the mode and the features in force
// (CONTRACT.md §3.2). It sits above the tool packages and the engine: tools
// never import the engine or the catalog, so their wiring lives here.
package toolset

import (
	"context"
	"os"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/shellpolicy"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/tools/automation"
	"github.com/codewhale/codewhale/internal/tools/bash"
	"github.com/codewhale/codewhale/internal/tools/file"
	"github.com/codewhale/codewhale/internal/tools/git"
	"github.com/codewhale/codewhale/internal/tools/github"
	"github.com/codewhale/codewhale/internal/tools/handles"
	"github.com/codewhale/codewhale/internal/tools/lsptool"
	"github.com/codewhale/codewhale/internal/tools/media"
	"github.com/codewhale/codewhale/internal/tools/memory"
	"github.com/codewhale/codewhale/internal/tools/plan"
	"github.com/codewhale/codewhale/internal/tools/rlm"
	"github.com/codewhale/codewhale/internal/tools/run"
	"github.com/codewhale/codewhale/internal/tools/skill"
	"github.com/codewhale/codewhale/internal/tools/tasks"
	"github.com/codewhale/codewhale/internal/tools/web"
	"github.com/codewhale/codewhale/internal/tools/work"
)

// Services are the session-scoped stores the built-in tools share across
// turns; registries are rebuilt every turn, the services are not. A nil
// optional service leaves its tool unregistered.
type Services struct {
	Workspace     string
	Home          string // codewhale home (memory root)
	SessionID     string
	Model         string
	MemoryEnabled bool

	Plan   *plan.Store
	Ledger *work.Ledger
	Jobs   *jobs.Manager // optional: Bash and Run
	// ReadStamps is the read-before-edit store shared by every File call of
	// this agent; nil leaves File unregistered.
	ReadStamps *file.ReadStamps
	// ApplyPatch is the [features] apply_patch switch.
	ApplyPatch bool
	// FileReadOnly registers File without its writes in every mode: a
	// sub-agent type whose tools name only Claude Code's readers (Read,
	// Grep, Glob, LS) reads files and never writes them (CONTRACT.md §6.5).
	FileReadOnly bool
	// GuardPaths are config and credential files File must never read.
	GuardPaths []string
	// TestCommand is the configured project test command for Run.
	TestCommand string
	Tasks       *tasks.Store   // optional
	Agents      *agent.Manager // optional: agent and its transcripts in handle_read
	// Handles keeps large results (fetched pages, issue threads) out of the
	// transcript for handle_read; shared by the session and its children.
	Handles *handles.Store
	// Web is the session's Web tool; nil leaves it unregistered
	// ([features] web_search off, or a policy that reaches nothing).
	Web *web.Tool
	// Automations is the scheduled-work store (nil: no automation tool);
	// Enqueue turns a due run into a task, Wake nudges this process's
	// scheduler after a change.
	Automations *auto.Store
	Enqueue     auto.Enqueue
	Wake        func()
	// RLM is the session's rlm tool (nil: unregistered); never in Plan,
	// where nothing executes code.
	RLM *rlm.Tool
	// GitHubEnv is added to the person's environment the gh commands'
	// environment is built from (tests).
	GitHubEnv []string
	// GitHubHosts are the [github] hosts github may reach besides
	// github.com; Network is the [network] policy gh's host must pass.
	GitHubHosts []string
	Network     *netpolicy.Policy
	// Commands is the command classifier Bash and task gates use; nil
	// builds one from the process-wide credential guard.
	Commands *shellpolicy.Env
	// Skills gives the session's current skills; load_skill is registered
	// while there is at least one (nil: none).
	Skills func() *projectctx.State
	// Extra registers further tools (MCP adapters) after the built-ins.
	Extra func(reg *tools.Registry, env engine.TurnEnv)
	// MCPInfo returns the MCP pool's facts for the catalog.
	MCPInfo func() catalog.MCPInfo
	// LSP is the session's language servers (nil or disabled: File checks
	// nothing and lsp is not registered; shared with sub-agents).
	LSP *lsp.Manager
	// Editor is the editor File reads and writes through (an ACP client
	// that offers fs/*; nil: the disk alone).
	Editor file.Editor
}

// Options configure NewServices.
type Options struct {
	Workspace     string
	Home          string
	SessionID     string
	Model         string
	MemoryEnabled bool
}

// NewServices returns the services of one agent (the session or a
// sub-agent): its own plan and To-do ledger.
func NewServices(o Options) *Services {
	return &Services{Workspace: o.Workspace, Home: o.Home, SessionID: o.SessionID, Model: o.Model,
		MemoryEnabled: o.MemoryEnabled, Plan: &plan.Store{}, Ledger: work.NewLedger(), ReadStamps: file.NewReadStamps(),
		ApplyPatch: true, Handles: handles.NewStore(0)}
}

// Registry builds the registry for a turn in env's mode.
func (s *Services) Registry(env engine.TurnEnv) *tools.Registry {
	reg := tools.NewRegistry()
	readOnly := env.Mode == posture.Plan
	if s.ReadStamps != nil {
		diag := s.fileDiagnostics()
		if readOnly || s.FileReadOnly {
			reg.Register(file.New(file.Options{ReadStamps: s.ReadStamps, GuardPaths: s.GuardPaths, Workspace: s.Workspace,
				Diagnostics: diag, Editor: s.Editor}))
		} else {
			o := file.Options{ReadStamps: s.ReadStamps, Writable: true, Patch: s.ApplyPatch, GuardPaths: s.GuardPaths,
				Workspace: s.Workspace, Diagnostics: diag, Editor: s.Editor}
			f := file.New(o)
			reg.Register(f)
			if s.ApplyPatch {
				reg.Register(file.NewApplyPatchOver(f))
			}
		}
	}
	reg.Register(git.New())
	shell := env.AllowShell || env.Posture == posture.FullAccess
	if s.Jobs != nil && !readOnly {
		if shell {
			reg.Register(bash.New(bash.Options{Jobs: s.Jobs, Policy: bash.ShellFull, Commands: s.CommandEnv()}))
		}
		reg.Register(run.New(run.Options{Jobs: s.Jobs, TestCommand: s.TestCommand, Commands: s.CommandEnv(), NoShell: !shell}))
	}
	reg.Register(plan.New(s.Plan))
	reg.Register(work.New(s.Ledger))
	for _, a := range work.Aliases(s.Ledger) {
		reg.Register(a)
	}
	if s.Tasks != nil {
		o := tasks.Options{Store: s.Tasks, ReadOnly: readOnly, Workspace: s.Workspace, DefaultModel: s.Model,
			AllowShell: env.AllowShell, SessionID: s.SessionID, Commands: s.CommandEnv(), Jobs: s.Jobs,
			Creator: tasks.Authority{Posture: env.Posture.Value(), AutoApprove: env.AutoApprove, Trust: env.Trust,
				AllowShell: env.AllowShell}}
		reg.Register(tasks.New(o))
		for _, a := range tasks.Aliases(o) {
			reg.Register(a)
		}
	}
	if s.MemoryEnabled && !readOnly {
		reg.Register(memory.New(memory.Options{Root: s.Home, Workspace: s.Workspace}))
	}
	var sources []handles.Source
	if s.Agents != nil && s.Agents.CanSpawn() {
		reg.Register(agent.New(s.Agents, s.WorkState).Within(agent.Authority{Posture: env.Posture,
			AllowShell: env.AllowShell, Trust: env.Trust}))
		sources = append(sources, s.Agents.HandleSource())
	}
	if s.Web != nil {
		reg.Register(s.Web) // read-only: Plan keeps it
	}
	if s.LSP.Enabled() {
		// Registered whatever is installed, so the catalog (and the
		// prompt's list of tools) depends on the config alone; a file no
		// server takes gets a failed result saying so.
		reg.Register(lsptool.New(s.LSP)) // read-only: Plan keeps it
	}
	if s.Automations != nil {
		at := automation.New(automation.Options{Store: s.Automations, Enqueue: s.Enqueue, ReadOnly: readOnly,
			Wake: s.Wake, Workspace: s.Workspace, Ceiling: func() auto.Ceiling { return Ceiling(env) }})
		reg.Register(at)
		for _, a := range automation.Aliases(at) {
			reg.Register(a)
		}
	}
	if s.RLM != nil && !readOnly && shell { // its eval runs the model's Python: a shell by another name
		reg.Register(s.RLM)
		for _, a := range rlm.Aliases(s.RLM) {
			reg.Register(a)
		}
	}
	gh := github.New(github.Options{ReadOnly: readOnly, Handles: s.Handles, Env: s.GitHubEnv, Hosts: s.GitHubHosts,
		Network: s.Network})
	reg.Register(gh)
	for _, a := range github.Aliases(gh) {
		reg.Register(a)
	}
	if s.Handles != nil {
		sources = append(sources, s.Handles)
	}
	reg.Register(media.New()) // read-only: Plan keeps it
	if s.Skills != nil && len(s.Skills().Skills) > 0 {
		reg.Register(skill.New(s.Skills, s.Workspace)) // read-only: Plan keeps it
	}
	if len(sources) > 0 {
		reg.Register(handles.NewRead(sources...))
	}
	if s.Extra != nil {
		s.Extra(reg, env)
	}
	return reg
}

// fileDiagnostics is File's view of the language servers, or nil.
func (s *Services) fileDiagnostics() file.Diagnostics {
	if !s.LSP.Enabled() {
		return nil
	}
	return fileDiagnostics{s.LSP}
}

// fileDiagnostics adapts the language servers to file.Diagnostics.
type fileDiagnostics struct{ m *lsp.Manager }

func (d fileDiagnostics) Read(abs string, text []byte) { d.m.Opened(abs, text) }

func (d fileDiagnostics) Changed(ctx context.Context, changes []file.FileChange) string {
	out := make([]lsp.Change, len(changes))
	for i, c := range changes {
		out[i] = lsp.Change{Path: c.Path, Before: c.Before, After: c.After, Deleted: c.Deleted}
	}
	return d.m.Changed(ctx, out)
}

// CommandEnv is the command classifier's view of this session: the user's
// home, the workspace and the process-wide credential guard. Bash, task
// gates and rlm eval (internal/app) are judged by it.
func (s *Services) CommandEnv() *shellpolicy.Env {
	if s.Commands != nil {
		return s.Commands
	}
	home, _ := os.UserHomeDir()
	return &shellpolicy.Env{Home: home, Workspace: s.Workspace, Getenv: os.Getenv}
}

// WorkState renders this agent's To-do for the request tail ("" when empty).
func (s *Services) WorkState() string { return work.RenderWorkState(s.Ledger.Snapshot()) }

// Toolset is the engine's tool factory for this session.
func (s *Services) Toolset(env engine.TurnEnv) engine.Toolset {
	ts := engine.Toolset{Registry: s.Registry(env)}
	if s.MCPInfo != nil {
		ts.MCP = s.MCPInfo()
	}
	return ts
}

// Ceiling is the most authority work created under env may get later
// (automations, and the tasks their runs become): Full Access may approve
// its own prompts and leave the workspace; every other posture keeps what
// it has and no more.
func Ceiling(env engine.TurnEnv) auto.Ceiling {
	switch env.Posture {
	case posture.FullAccess:
		return auto.Ceiling{Posture: "full_access", AutoApprove: true, AllowShell: true, TrustMode: true}
	case posture.AutoReview:
		return auto.Ceiling{Posture: "auto", AllowShell: env.AllowShell}
	case posture.Never:
		return auto.Ceiling{Posture: "never"}
	}
	return auto.Ceiling{Posture: "ask", AllowShell: env.AllowShell}
}
