package app

import (
	"sync"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tools/memory"
	"github.com/codewhale/codewhale/internal/toolset"
)

// projectState loads the session's project context on first use: hosts
// that never build a prompt (`codewhale tools`) do not pay for it.
type projectState struct {
	once sync.Once
	ctx  *projectctx.Context
}

// Project is the session's project instructions, user commands and skills
// (CONTRACT.md §17), read once and refreshed as each turn starts.
func (a *App) Project() *projectctx.Context {
	a.project.once.Do(func() {
		a.project.ctx = projectctx.Load(projectctx.Options{Home: a.Cfg.Home, Workspace: a.Cfg.Workspace,
			KnownTool: toolset.KnownTool})
	})
	return a.project.ctx
}

// systemPrompt is the product's own rules, then the project instructions
// and the skills list (the same bytes on every step while the files are
// unchanged, so the provider's prefix cache holds), then the user's memory,
// then the connected MCP servers' instructions, each under its server's
// name and bounded (mcp.Pool.Instructions).
func (a *App) systemPrompt(env engine.PromptEnv) string {
	s := a.withProject(engine.DefaultSystemPrompt(env))
	if a.Services.MCPInfo != nil {
		if block := a.MCP.Instructions(); block != "" {
			s += "\n\n" + block
		}
	}
	return s
}

func (a *App) withProject(rules string) string {
	s := a.withInstructions(rules)
	if a.Cfg.MemoryEnabled {
		if block := memory.Block(a.Cfg.Home, a.Cfg.Workspace); block != "" {
			s += "\n\n" + block
		}
	}
	return s
}

// withInstructions appends the project block to rules; sub-agents get it
// too, since they work in the same repository.
func (a *App) withInstructions(rules string) string {
	if block := a.Project().State().PromptBlock(); block != "" {
		return rules + "\n\n" + block
	}
	return rules
}

// turnStart looks for edits to the project context between turns.
func (a *App) turnStart() []string { return a.Project().Refresh() }
