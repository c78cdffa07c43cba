package main

import (
	"context"

	"github.com/codewhale/codewhale/internal/app"
	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/hooks"
	"github.com/codewhale/codewhale/internal/mcp"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tui"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

// runTUI starts the interactive UI; prompt ("" for none) is sent as the
// first message. A missing API key does not stop it: the UI explains how to
// set one and local commands keep working.
func runTUI(ios IO, g *globals, prompt string) error {
	cfg, err := g.load()
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	var resume *session.Loaded
	if g.resume != "" || g.continueLast {
		if resume, err = session.Resolve(cfg.Home, cfg.Workspace, g.resume, g.continueLast); err != nil {
			return &exitError{code: 1, err: err}
		}
	}
	return startTUI(ios, g, cfg, prompt, resume)
}

// runTUIPicking starts the UI on the session picker (`codewhale resume`
// with no id at a terminal).
func runTUIPicking(ios IO, g *globals) error {
	cfg, err := g.load()
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	return startTUIWith(ios, g, cfg, "", nil, true)
}

// runTUIWithSession starts the UI on a resolved saved session.
func runTUIWithSession(ios IO, g *globals, l *session.Loaded) error {
	cfg, err := g.load()
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	return startTUI(ios, g, cfg, "", l)
}

func startTUI(ios IO, g *globals, cfg *config.Config, prompt string, resume *session.Loaded) error {
	return startTUIWith(ios, g, cfg, prompt, resume, false)
}

// startTUIWith is startTUI; pick opens the session picker first.
func startTUIWith(ios IO, g *globals, cfg *config.Config, prompt string, resume *session.Loaded, pick bool) error {
	importLegacySessions(ios, g, cfg)
	opts := app.Options{Version: codewhaleVersion(), Interactive: true, RunTasks: true, HoldRuns: true, Executable: executable(), Hooks: hooks.Trusted}
	if resume != nil {
		opts.SessionID = resume.Session.ID
		opts.Mode = &resume.Session.Mode
	}
	a, err := app.New(cfg, opts)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	defer a.Close()
	if resume != nil {
		// Claim the session before the UI starts: one writer per session.
		if resume, err = a.Claim(resume.Meta.ID, false); err != nil {
			return &exitError{code: 1, err: err}
		}
	}
	eopts := a.EngineOptions()
	eng, notices := a.Start(context.Background(), eopts)
	sessionID := ""
	if eopts.Session != nil {
		sessionID = eopts.Session.ID
	}
	code, err := tui.Run(tui.Options{
		Engine:      eng,
		Jobs:        a.Jobs,
		Agents:      a.Agents,
		Automations: a.Automations,
		Checkpoints: a.Checkpoints, CheckpointsOff: a.CheckpointsOff,
		Permissions: a.Permissions,
		Project:     a.Project(),
		Hooks:       a.Hooks,
		LSP:         a.LSP,
		MCP:         tuiMCP(a),
		WakeScheduler: func() {
			if a.Scheduler != nil {
				a.Scheduler.Wake()
			}
		},
		Route:         tuiRoute(cfg),
		Routes:        tuiRoutes{a},
		Models:        cfg.ModelTable(),
		Workspace:     cfg.Workspace,
		Home:          cfg.Home,
		SessionID:     sessionID,
		Mode:          eopts.Mode,
		Posture:       eopts.Posture,
		Sandbox:       a.Sandbox,
		AllowShell:    cfg.AllowShell,
		Prices:        cfg.File.Pricing,
		ContextWindow: cfg.File.Providers[cfg.Provider].ContextWindow,
		Version:       codewhaleVersion(),
		Prompt:        prompt,
		Resume:        resume,
		PickSession:   pick,
		Journal:       a.Journal,
		Notices:       notices.All(),
		Shown:         a.ReleaseRuns,
		Theme:         theme.New(theme.Detect(cfg.Env)),
		LowMotion:     cfg.Env("NO_ANIMATIONS") == "1",
		Getenv:        cfg.Env,
		Multiplexer:   tui.DetectMultiplexer(cfg.Env),
		ConfigPath:    cfg.Path,
		Notify:        tui.Notify{When: cfg.NotifyWhen, Method: cfg.NotifyMethod},
		Settings:      cfg.Settings(),
	}, tui.Terminal{In: ios.In, Out: ios.Out, NoMouse: g.noMouse})
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// tuiMCP is the session's MCP pool for /mcp, prompts and mentions; nil
// with --no-mcp.
func tuiMCP(a *app.App) *mcp.Pool {
	if a.Opts.NoMCP {
		return nil
	}
	return a.MCP
}
