package app

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codewhale/codewhale/internal/binpath"
	"github.com/codewhale/codewhale/internal/checkpoint"
	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/sandbox"
)

// newLSP is the session's language servers (README "Language servers"):
// the [lsp] table over the built-in servers; programs found past the
// workspace's PATH entries (binpath) and started with the environment Bash
// gets (sandbox.(*Sandbox).Environ, secrets scrubbed), its PATH narrowed
// the same way. A file outside the workspace has its root searched no
// higher than the trusted root it lies under: the workspace's trust list
// (read afresh, as /trust edits it) and trusted_paths. Nothing starts
// until a file of a server's language is touched.
func newLSP(cfg *config.Config, sb *sandbox.Sandbox) (*lsp.Manager, error) {
	c := cfg.LSP
	var user []lsp.Server
	for _, s := range c.Servers {
		u := lsp.Server{Name: s.Name, Command: s.Command, Args: s.Args, Languages: s.Languages, Extensions: s.Extensions,
			RootMarkers: s.RootMarkers, Env: s.Env}
		if s.InitOptions != nil {
			u.InitOptions = s.InitOptions
		}
		user = append(user, u)
	}
	servers, err := lsp.Merge(user)
	if err != nil {
		return nil, fmt.Errorf("config: %s: %w", cfg.Path, err)
	}
	ws := cfg.Workspace
	return lsp.New(lsp.Options{
		Config: lsp.Config{Enabled: c.Enabled, Wait: c.PollAfterEdit, MaxPerFile: c.MaxPerFile,
			IncludeWarnings: c.IncludeWarnings, Servers: servers},
		Workspace: ws,
		Environ:   func(extra ...string) []string { return serverEnv(sb.Environ(extra...), ws) },
		LookPath:  func(name string) (string, error) { return binpath.LookPath(name, ws) },
		TrustedRoots: func() []string {
			var roots []string
			if cfg.Home != "" {
				roots, _ = config.WorkspaceTrust(cfg.Home, ws)
			}
			return slices.Concat(roots, cfg.TrustedPaths)
		},
	}), nil
}

// serverEnv is env with PATH narrowed as binpath searches it.
func serverEnv(env []string, ws string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); !strings.EqualFold(name, "PATH") {
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+binpath.SearchPath(ws))
}

// lspAfterCommand has the language servers check the files a command (a
// Bash or Run call) changed, as the checkpoints saw them; what they find
// reaches the model as a runtime notice (lspNotices).
func (a *App) lspAfterCommand(changes []checkpoint.Change) {
	if !a.LSP.Enabled() || len(changes) == 0 {
		return
	}
	paths := make([]string, 0, len(changes))
	for _, ch := range changes {
		paths = append(paths, filepath.Join(a.Cfg.Workspace, filepath.FromSlash(ch.Path)))
	}
	a.LSP.ChangedOnDisk(paths)
}

// lspNotices waits (at most the diagnostics wait) for the checks of files
// commands changed and returns what they found, once.
func (a *App) lspNotices() string {
	if !a.LSP.Enabled() {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.LSP.Wait())
	defer cancel()
	return a.LSP.Notices(ctx)
}

// LanguageServers is what doctor lists: whether [lsp] is on, and each
// configured server with whether its program is found (none is started).
func LanguageServers(cfg *config.Config) (bool, []lsp.ServerInfo, error) {
	m, err := newLSP(cfg, nil)
	if err != nil {
		return false, nil, err
	}
	defer m.Close()
	return m.Enabled(), m.Servers(), nil
}
