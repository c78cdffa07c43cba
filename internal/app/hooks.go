package app

import (
	"context"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/hooks"
	"github.com/codewhale/codewhale/internal/sandbox"
)

// openHooks builds the session's hook runner (CONTRACT.md §17.4) and runs
// the shell_env hooks, whose variables join every command's environment
// (returned for the job manager). Without any hook configured a.Hooks
// stays nil and the engine gets none.
func (a *App) openHooks(use hooks.Use) ([]string, error) {
	r, notices, err := newHooks(a.Cfg, use, a.Sandbox)
	if err != nil || r == nil {
		return nil, err
	}
	a.Hooks, a.HookNotices = r, append(a.HookNotices, notices...)
	if !r.Has(hooks.ShellEnv) {
		return nil, nil
	}
	env, lines := r.ShellEnv(a.ctx, a.Opts.SessionID)
	a.HookNotices = append(a.HookNotices, lines...)
	return env, nil
}

// OneShotHooks is the hook runner of the one-shot exec, which has no
// session (nil when no hook runs or waits for trust): its hooks run as a
// session's do, under the sandbox of the session's commands and with their
// environment (exe serves the sandbox's helper), and the notices are the
// session's start-up notices.
func OneShotHooks(cfg *config.Config, use hooks.Use, exe string) (*hooks.Runner, []string, error) {
	if use == hooks.Off {
		return nil, nil, nil
	}
	return newHooks(cfg, use, newSandbox(cfg, exe))
}

// newHooks builds a hook runner whose hooks run under sb, with the notice
// of a project file that waits for trust (or runs untrusted, --hooks); it
// is nil when no hook runs or waits.
func newHooks(cfg *config.Config, use hooks.Use, sb *sandbox.Sandbox) (*hooks.Runner, []string, error) {
	r, err := hooks.New(hooks.Options{Use: use, User: cfg.File.Hooks, UserFile: cfg.Path, Home: cfg.Home, Workspace: cfg.Workspace,
		Sandbox: sb})
	if err != nil || use == hooks.Off || !r.Configured() {
		return nil, nil, err
	}
	var notices []string
	if _, p := r.List(); !p.Trusted {
		if line := p.Line(); line != "" {
			if use == hooks.All {
				line = "Project hooks: " + p.Path + " runs for this run only (--hooks); it is not recorded as trusted."
			}
			notices = append(notices, line)
		}
	}
	return r, notices, nil
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
