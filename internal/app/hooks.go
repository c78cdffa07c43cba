package app

import (
	"context"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/hooks"
)

// openHooks builds the session's hook runner (CONTRACT.md §17.4) and runs
// the shell_env hooks, whose variables join every command's environment
// (returned for the job manager). Without any hook configured a.Hooks
// stays nil and the engine gets none.
func (a *App) openHooks(use hooks.Use) ([]string, error) {
	cfg := a.Cfg
	r, err := hooks.New(hooks.Options{Use: use, User: cfg.File.Hooks, UserFile: cfg.Path, Home: cfg.Home, Workspace: cfg.Workspace,
		Sandbox: a.Sandbox})
	if err != nil {
		return nil, err
	}
	if use == hooks.Off || !r.Configured() {
		return nil, nil
	}
	a.Hooks = r
	if _, p := r.List(); !p.Trusted {
		if line := p.Line(); line != "" {
			if use == hooks.All {
				line = "Project hooks: " + p.Path + " runs for this run only (--hooks); it is not recorded as trusted."
			}
			a.HookNotices = append(a.HookNotices, line)
		}
	}
	if !r.Has(hooks.ShellEnv) {
		return nil, nil
	}
	env, lines := r.ShellEnv(a.ctx, a.Opts.SessionID)
	a.HookNotices = append(a.HookNotices, lines...)
	return env, nil
}

// StartHooks runs the session_start hooks; hosts call it once the session
// is about to take input and show the lines it returns.
func (a *App) StartHooks(ctx context.Context) []string {
	if a.Hooks == nil || !a.Hooks.Has(hooks.SessionStart) {
		return nil
	}
	return a.Hooks.SessionStart(ctx, a.Opts.SessionID)
}

// engineHooks is the session engine's Hooks, or nil (a nil *Runner must
// not become a non-nil interface).
func (a *App) engineHooks() engine.Hooks {
	if a.Hooks == nil {
		return nil
	}
	return a.Hooks
}

// childHooks are the hooks a sub-agent or task runs: its session's tool
// hooks only.
func (a *App) childHooks() engine.Hooks {
	return hooks.Only(a.Hooks, engine.HookToolBefore, engine.HookToolAfter)
}
