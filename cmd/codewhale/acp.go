package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/acp"
	"github.com/codewhale/codewhale/internal/app"
	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/hooks"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/session"
)

func newACPCmd(ios IO, g *globals) *cobra.Command {
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Serve the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, Neovim)",
		Long: "acp runs codewhale as an Agent Client Protocol agent: JSON-RPC 2.0, one message per line, on stdin and " +
			"stdout. Only protocol messages go to stdout; diagnostics go to stderr. Each session the editor opens is " +
			"an ordinary codewhale session (`codewhale sessions`, resumable in the TUI).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if g.apiKey == "-" {
				return &exitError{code: exitFailure, err: errors.New("acp reads the protocol on stdin: give the key with --api-key-file, an *_API_KEY variable or `codewhale auth set`")}
			}
			return runACP(ios, g, wait)
		},
	}
	cmd.Flags().DurationVar(&wait, "permission-timeout", acp.DefaultPermissionWait,
		"how long a permission request waits for the editor's answer before the call is denied")
	return cmd
}

// runACP serves the protocol until the client closes stdin or a signal
// arrives.
func runACP(ios IO, g *globals, wait time.Duration) error {
	level := slog.LevelWarn
	if g.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(ios.Err, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	h := &acpHost{g: g, log: log}
	return acp.Serve(ctx, ios.In, ios.Out, acp.Options{Open: h.open, KeyMissing: h.keyMissing, Version: codewhaleVersion(), Log: log,
		PermissionWait: wait})
}

// acpHost builds each ACP session as the TUI builds its own: one app (the
// services, jobs, MCP, journal), one engine from its options.
type acpHost struct {
	g   *globals
	log *slog.Logger
}

// config is the configuration for a workspace the client named.
func (h *acpHost) config(cwd string) (*config.Config, error) {
	g := *h.g
	if cwd != "" {
		if !filepath.IsAbs(cwd) {
			return nil, fmt.Errorf("cwd %q is not an absolute path", cwd)
		}
		g.workspace = cwd
	}
	return g.load()
}

// keyMissing re-reads the configuration, so a key stored with `codewhale
// auth set` after the agent started counts.
func (h *acpHost) keyMissing() bool {
	cfg, err := h.config("")
	if err != nil {
		return false // the error surfaces when a session opens
	}
	return cfg.APIKey == "" && !cfg.KeyOptional && !provider.IsLoopback(cfg.BaseURL)
}

func (h *acpHost) open(ctx context.Context, o acp.OpenOptions) (*acp.Backend, error) {
	cfg, err := h.config(o.Cwd)
	if err != nil {
		return nil, err
	}
	opts := app.Options{Version: codewhaleVersion(), Interactive: true, Executable: executable(), Hooks: hooks.Trusted,
		MCPServers: o.MCPServers}
	var loaded *session.Loaded
	if o.Load != "" {
		if loaded, err = session.Resolve(cfg.Home, cfg.Workspace, o.Load, false); err != nil {
			return nil, err
		}
		opts.SessionID, opts.Mode = loaded.Session.ID, &loaded.Session.Mode
	}
	a, err := app.New(cfg, opts)
	if err != nil {
		return nil, err
	}
	a.Services.Editor = o.Editor
	if loaded != nil {
		// One writer per session, as the TUI claims it.
		if loaded, err = a.Claim(loaded.Meta.ID, false); err != nil {
			a.Close()
			return nil, err
		}
	}
	eopts := a.EngineOptions()
	eng, notices := a.Start(ctx, eopts)
	for _, n := range notices.All() {
		h.log.Info(n)
	}
	b := &acp.Backend{Engine: eng, SessionID: eopts.Session.ID, Mode: eopts.Mode, Todo: a.Services.Ledger, Close: a.Close}
	if loaded != nil {
		b.Resume = &engine.SyncSession{Session: loaded.Session, Persist: loaded.Persist}
		b.Mode = loaded.Session.Mode
	}
	return b, nil
}
