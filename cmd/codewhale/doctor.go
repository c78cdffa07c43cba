package main

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/app"
	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/doctor"
	"github.com/codewhale/codewhale/internal/httptransport"
	"github.com/codewhale/codewhale/internal/mcp"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/secrets"
)

// newDoctorCmd is `codewhale doctor [--json]`: what works here and what
// to fix. It exits 1 when a check failed.
func newDoctorCmd(ios IO, g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check config files, API key, endpoint, sandbox, helper programs, MCP and language servers, and sessions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r := doctor.Run(cmd.Context(), doctorOptions(g))
			if asJSON {
				if err := printJSON(ios.Out, r); err != nil {
					return err
				}
			} else {
				doctor.Write(ios.Out, r)
			}
			if !r.OK {
				return &exitError{code: exitFailure}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// doctorOptions gathers the facts doctor checks; a config that does not
// load is itself a finding, not a reason to stop.
func doctorOptions(g *globals) doctor.Options {
	env := config.ProcessEnv()
	o := doctor.Options{Home: config.HomeDir(env), LookPath: exec.LookPath, Version: programVersion, Reach: reach,
		Sandbox: sandboxStatus(sandbox.Defaults{Mode: sandbox.WorkspaceWrite})}
	files := []doctor.ConfigFile{{Role: "user", Path: config.UserPath(g.configPath, env)}}
	ws, wsErr := g.workspaceDir()
	if wsErr == nil && !g.noProjectConfig {
		files = append(files, doctor.ConfigFile{Role: "project", Path: config.ProjectPath(ws)})
	}
	for i := range files {
		files[i].Exists, files[i].Err = config.CheckFile(files[i].Path)
	}
	o.ConfigFiles, o.Workspace = files, ws
	cfg, err := g.load()
	if err != nil {
		o.LoadErr = err
		return o
	}
	o.Effective = effective(cfg)
	o.MCP = func(ctx context.Context) (doctor.MCPReport, error) { return mcpReport(ctx, g, cfg.MCPConfigPath) }
	o.LSP = func() (doctor.LSPReport, error) { return lspReport(cfg) }
	o.Agents = func() doctor.AgentsReport { return agentsReport(cfg) }
	o.Sandbox = sandboxStatus(cfg.SandboxDefaults())
	return o
}

// effective is what doctor reports of the resolved route: the key's source
// and host, every other key's host, and the proxy in force.
func effective(cfg *config.Config) *doctor.Effective {
	e := &doctor.Effective{Provider: config.ProviderDisplayName(cfg.Provider), ProviderID: cfg.Provider, Model: cfg.Model,
		BaseURL: cfg.BaseURL, BaseSource: cfg.BaseSource, KeySource: cfg.KeySource, KeyOrigin: cfg.KeyOrigin(),
		HasKey: cfg.APIKey != "", KeyHost: cfg.KeyHost, KeyBoundTo: cfg.KeyBoundTo, Withheld: cfg.Withheld,
		KeyOptional: cfg.KeyOptional, Loopback: provider.IsLoopback(cfg.BaseURL), ProxyVars: cfg.ProxyVars(),
		Mode: cfg.Mode.String(), Posture: cfg.Posture.Chip()}
	if e.Model == "" {
		e.Model = "(the server's first model)"
	}
	for _, k := range cfg.KeyRoutes() {
		e.Keys = append(e.Keys, doctor.KeyRoute{Provider: k.Provider, Origin: k.Origin, Host: orNoBase(k.Host)})
	}
	e.Proxy, _ = httptransport.Proxy(provider.ChatURL(cfg.BaseURL, false, cfg.PathSuffix))
	return e
}

// lspReport lists the language servers the session would use.
func lspReport(cfg *config.Config) (doctor.LSPReport, error) {
	on, servers, err := app.LanguageServers(cfg)
	rep := doctor.LSPReport{Enabled: on}
	for _, s := range servers {
		rep.Servers = append(rep.Servers, doctor.LSPServer{Name: s.Name, Files: s.Files, Path: s.Path, Why: s.Why,
			Found: s.Found, Builtin: s.Builtin})
	}
	return rep, err
}

// sandboxStatus is what the session's sandbox would be, probed here with
// this binary as the helper (so an unprivileged run probes user namespaces
// as the session would).
func sandboxStatus(d sandbox.Defaults) doctor.SandboxStatus {
	st := sandbox.New(sandbox.DefaultPolicy(d), sandbox.Options{Helper: executable()}).Status()
	s := doctor.SandboxStatus{Enforced: st.Enforced, Mechanism: string(st.Mechanism), Reason: st.Reason, Degraded: st.Degraded}
	switch {
	case st.Enforced:
		s.Mechanism += " (" + st.Detail + "; network " + st.Network + ")"
	case s.Reason == "":
		s.Reason = "sandbox_mode = " + string(st.Mode)
	}
	return s
}

// programVersion is the first line of `<path> <flag>`.
func programVersion(ctx context.Context, path, flag string) (string, error) {
	cmd := exec.CommandContext(ctx, path, flag)
	cmd.Env = secrets.Environ() // the scrubbed environment a command gets
	out, err := cmd.Output()
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return first, err
}

// reach sends one GET to url; any HTTP answer means the endpoint is there.
func reach(ctx context.Context, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, provider.ModelsURL(url, ""), nil)
	if err != nil {
		return 0, err
	}
	resp, err := httptransport.Client(config.ProcessEnv()("SSL_CERT_FILE")).Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// mcpReport starts the enabled MCP servers, as `codewhale mcp list` does,
// and reports their states.
func mcpReport(ctx context.Context, g *globals, path string) (doctor.MCPReport, error) {
	pool := startPoolCtx(ctx, g, path)
	defer pool.Close()
	if err := pool.ConfigError(); err != nil {
		return doctor.MCPReport{}, err
	}
	rep := doctor.MCPReport{Path: pool.Path()}
	for _, s := range pool.Statuses() {
		rep.Servers = append(rep.Servers, doctor.MCPServer{Name: s.Name, State: string(s.State), Error: s.Error,
			Tools: len(s.Tools), Required: s.Required})
	}
	return rep, nil
}

// startPoolCtx starts every enabled server of the mcp.json at path within
// ctx.
func startPoolCtx(ctx context.Context, g *globals, path string) *mcp.Pool {
	pool := mcp.NewPool(path, mcpOptions(g))
	start, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	pool.Start(start)
	return pool
}

func orNoBase(s string) string {
	if s == "" {
		return "(no base URL)"
	}
	return s
}
