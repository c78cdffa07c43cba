package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/toolset"
)

// spawnChild implements agent.Spawner: it builds the child's engine and
// runs it until ctx (the child's lifetime) ends.
func (a *App) spawnChild(ctx context.Context, cc agent.ChildConfig) (agent.Run, error) {
	eng, sub, err := a.childFactory(cc)
	if err != nil {
		return nil, err
	}
	if sub != nil {
		// The child's own sub-agents end with it.
		context.AfterFunc(ctx, func() { sub.Drain(context.Background(), 0, agentSettle) })
	}
	run(ctx, eng) // the child's lifetime bounds its loop
	return EngineRun{Engine: eng}, nil
}

// childFactory builds a sub-agent engine: its own history, To-do and plan;
// the session's tasks store; the mode the agent tool decided (Plan for
// read-only roles, never wider than the session's); a defined type's
// instructions, tools, model and effort; its own worktree as workspace and
// sandbox when it has one; approvals follow the parent's posture without
// anyone to ask.
func (a *App) childFactory(cc agent.ChildConfig) (*engine.Engine, *agent.Manager, error) {
	workspace, sb := a.Cfg.Workspace, a.Sandbox
	if cc.Workspace != "" {
		workspace, sb = cc.Workspace, a.worktreeSandbox(cc.Workspace)
	}
	svc := toolset.NewServices(toolset.Options{Workspace: workspace, Home: a.Cfg.Home, SessionID: cc.ID,
		Model: a.Cfg.Model, MemoryEnabled: false})
	svc.Tasks, svc.Jobs, svc.TestCommand = a.Tasks, a.Jobs, a.Cfg.File.TestCommand
	svc.ApplyPatch, svc.GuardPaths, svc.FileReadOnly = a.Services.ApplyPatch, a.Services.GuardPaths, cc.FileReadOnly
	svc.Web, svc.Handles, svc.LSP = a.Services.Web, a.Services.Handles, a.Services.LSP
	svc.GitHubHosts, svc.Network = a.Services.GitHubHosts, a.Services.Network
	if a.Services.RLM != nil {
		svc.RLM = a.Services.RLM.NewChild()
	}
	var eng *engine.Engine // the child's, once built: its own children are bounded by it
	if cc.Depth < cc.MaxDepth {
		svc.Agents = agent.NewManager(agent.Options{Spawner: agent.SpawnFunc(a.spawnChild), Depth: cc.Depth, MaxDepth: cc.MaxDepth,
			MaxConcurrent: a.Cfg.MaxSubagents, TranscriptDir: filepath.Join(a.Cfg.Home, "agents"), Types: a.agentTypes,
			DefaultModel: a.agentModel(), Parent: a.Agents, Bound: func() agent.Authority { return eng.Authority() }})
	}
	svc.Extra, svc.MCPInfo = a.Services.Extra, a.Services.MCPInfo
	svc.Skills = a.Services.Skills
	opts := a.EngineOptions()
	opts.Workspace, opts.Sandbox = workspace, sb
	opts.Checkpoints = nil // the parent turn's recording covers what its children change
	opts.Session = &engine.Session{ID: cc.ID}
	opts.Journal = nil // the child's transcript is saved by the agent manager
	// The child's input is a sub-agent handoff, so the engine runs it under
	// Ask without auto-approval (CONTRACT.md §9.1): with no one to ask,
	// calls that need approval are refused and read-only work proceeds.
	opts.Interactive = false
	opts.Tools, opts.WorkState, opts.BackgroundNotices = narrowed(svc.Toolset, cc.Tools), svc.WorkState, nil
	if svc.Agents != nil {
		opts.BackgroundNotices = svc.Agents.Completed
	}
	if au := cc.Authority; au != nil {
		// The starting turn's authority as it is now, not the session's
		// as configured: a parent narrowed since start-up (Shift+Tab to
		// Ask) never starts a child that keeps what it gave up.
		opts.Posture, opts.AllowShell, opts.Trust = au.Posture, au.AllowShell, au.Trust
	}
	// And as the parent's is at each of the child's steps: narrowing the
	// parent narrows a child already running.
	opts.Bound = cc.Bound
	opts.Mode = cc.Mode
	if cc.ReadOnly {
		opts.Mode = posture.Plan
	}
	if cc.MaxSteps > 0 {
		opts.MaxSteps = cc.MaxSteps
	}
	if cc.Model != "" {
		opts.Model = cc.Model
	}
	if cc.ReasoningEffort != "" {
		opts.ReasoningEffort = cc.ReasoningEffort
	}
	opts.TurnStart = nil // the parent's turn refreshes the project context
	opts.Hooks = a.childHooks()
	opts.SubAgentRole = cc.Role // the prompt's sub-agent section
	opts.SystemPrompt = func(env engine.PromptEnv) string {
		return withType(a.withInstructions(engine.DefaultSystemPrompt(env)), cc)
	}
	eng = engine.New(opts)
	return eng, svc.Agents, nil
}

// narrowed is the child's tool factory: the session's registry for its
// mode, less every tool its type's allow-list does not name (nil: all of
// them). Removing them from the registry keeps the catalog, the request
// and dispatch in agreement: a tool the type lacks is simply not there.
func narrowed(base func(engine.TurnEnv) engine.Toolset, allow []string) func(engine.TurnEnv) engine.Toolset {
	if allow == nil {
		return base
	}
	return func(env engine.TurnEnv) engine.Toolset {
		ts := base(env)
		for _, name := range ts.Registry.Names() {
			if !catalog.MatchesAny(allow, name) {
				ts.Registry.Remove(name)
			}
		}
		return ts
	}
}

// withType appends a defined type's instructions to the child's system
// prompt, after the product's rules and the project's instructions.
func withType(prompt string, cc agent.ChildConfig) string {
	if cc.Instructions == "" {
		return prompt
	}
	return fmt.Sprintf("%s\n\n<subagent_type name=%q source=%q>\n%s\n</subagent_type>", prompt, cc.Role, cc.TypeSource,
		cc.Instructions)
}

// worktreeSandbox confines a worktree child's commands as the session's
// are confined, with the worktree as their workspace.
func (a *App) worktreeSandbox(workspace string) *sandbox.Sandbox {
	d := a.Cfg.SandboxDefaults()
	d.Workspace = workspace
	return sandbox.New(sandbox.DefaultPolicy(d), sandbox.Options{EnvPassthrough: a.Cfg.Sandbox.EnvPassthrough,
		Helper: a.Opts.Executable})
}

// EngineRun is an agent.Run over an engine whose Run loop is going.
type EngineRun struct{ Engine *engine.Engine }

// Turn runs one sub-agent turn; its input is a handoff, never the user's.
// A provider's 429 reaches the manager as it happens, so the session's
// next launches wait.
func (r EngineRun) Turn(ctx context.Context, prompt string, progress func(agent.Progress)) agent.Receipt {
	reply, err := r.Engine.RunTurn(ctx, engine.SendMessage{Content: prompt, Provenance: engine.ProvenanceSubagent},
		func(ev engine.Event) {
			var p agent.Progress
			switch ev := ev.(type) {
			case engine.SessionUpdated:
				p.Start, p.Messages = ev.Start, ev.Messages
			case engine.Retry:
				p.RateLimited = ev.Status == 429
			}
			progress(p)
		})
	if err != nil {
		return agent.Receipt{Outcome: agent.TurnFailed, Reply: reply.Text, Error: "the sub-agent engine stopped"}
	}
	d := reply.Done
	rec := agent.Receipt{Outcome: agent.TurnCompleted, MaxStepsReached: d.MaxStepsReached, Reply: reply.Text,
		Error: d.Error, Steps: d.Steps, Usage: d.Usage}
	switch d.Status {
	case engine.TurnFailed:
		rec.Outcome = agent.TurnFailed
	case engine.TurnInterrupted:
		rec.Outcome = agent.TurnInterrupted
	}
	return rec
}

// Steer sends text into the running turn.
func (r EngineRun) Steer(text string) { r.Engine.Submit(engine.Steer{Text: text}) }
