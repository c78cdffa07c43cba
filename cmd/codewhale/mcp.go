package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/mcp"
)

// newMCPCmd is `codewhale mcp`: inspect and edit the MCP servers of
// mcp.json (CONTRACT.md §12.5). Edits are atomic and keep every other key;
// running sessions pick them up with `/mcp reload`.
func newMCPCmd(ios IO, g *globals) *cobra.Command {
	root := &cobra.Command{Use: "mcp", Short: "List, test and edit the MCP servers in mcp.json"}
	root.AddCommand(newMCPListCmd(ios, g), newMCPToolsCmd(ios, g), newMCPAddCmd(ios, g),
		newMCPRemoveCmd(ios, g), newMCPEnableCmd(ios, g, true), newMCPEnableCmd(ios, g, false), newMCPValidateCmd(ios, g),
		newMCPTrustCmd(ios, g), newMCPLoginCmd(ios, g), newMCPLogoutCmd(ios, g))
	return root
}

// mcpProject is where the workspace's .mcp.json is read from: none with
// --no-project-config or without a workspace.
func mcpProject(g *globals) mcp.Project {
	if g.noProjectConfig {
		return mcp.Project{}
	}
	cfg, err := g.load()
	if err != nil {
		return mcp.Project{}
	}
	ws, err := g.workspaceDir()
	if err != nil {
		return mcp.Project{}
	}
	return mcp.Project{Workspace: ws, Home: cfg.Home}
}

// mcpOptions are a subcommand's pool options: the workspace, its
// .mcp.json, the network policy and the stored OAuth tokens, as a
// session has them.
func mcpOptions(g *globals) mcp.Options {
	opts := mcp.Options{ClientVersion: codewhaleVersion(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Project: mcpProject(g)}
	if ws, err := g.workspaceDir(); err == nil {
		opts.Dir = ws
	}
	if cfg, err := g.load(); err == nil {
		opts.Tokens, opts.Network = config.MCPTokens{Home: cfg.Home}, cfg.Web.Policy
	}
	return opts
}

// newMCPTrustCmd is `codewhale mcp trust`: the trust step for the
// workspace's .mcp.json (the one projecttrust keeps for project files).
func newMCPTrustCmd(ios IO, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "trust",
		Short: "Trust the workspace's .mcp.json as it is now, so its servers start",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			pr := mcpProject(g)
			if pr.Workspace == "" {
				return errors.New("no workspace (or --no-project-config): there is no project .mcp.json to trust")
			}
			line, err := mcp.TrustProject(pr)
			if err != nil {
				return err
			}
			fmt.Fprintln(ios.Out, line)
			return nil
		},
	}
}

// mcpPath resolves the mcp.json path (mcp_config_path, CODEWHALE_MCP_CONFIG).
func mcpPath(g *globals) (string, error) {
	cfg, err := g.load()
	if err != nil {
		return "", err
	}
	return cfg.MCPConfigPath, nil
}

// startPool starts the named servers (all when none) of a fresh pool. The
// caller closes it. Ctrl+C abandons the wait.
func startPool(g *globals, names ...string) (*mcp.Pool, error) {
	path, err := mcpPath(g)
	if err != nil {
		return nil, err
	}
	pool := mcp.NewPool(path, mcpOptions(g))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	pool.Start(ctx, names...)
	return pool, nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newMCPListCmd(ios IO, g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Start every enabled server and show its state, tool count, error and stderr tail",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			pool, err := startPool(g)
			if err != nil {
				return err
			}
			defer pool.Close()
			if asJSON {
				if err := pool.ConfigError(); err != nil {
					return &exitError{code: exitFailure, err: err}
				}
				return printJSON(ios.Out, pool.Statuses())
			}
			mcp.WriteStatuses(ios.Out, pool.Path(), pool.ConfigError(), pool.Statuses())
			if line := pool.Project().Line(); line != "" {
				fmt.Fprintln(ios.Out, line)
			}
			if pool.ConfigError() != nil {
				return &exitError{code: exitFailure}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newMCPToolsCmd(ios IO, g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tools SERVER",
		Short: "Start one server and list its tools with their model names",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			pool, err := startPool(g, args[0])
			if err != nil {
				return err
			}
			defer pool.Close()
			if err := pool.ConfigError(); err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			st, ok := pool.Status(args[0])
			switch {
			case !ok:
				return &exitError{code: exitFailure, err: fmt.Errorf("no MCP server named '%s' in %s", args[0], pool.Path())}
			case st.State != mcp.StateConnected:
				msg := fmt.Sprintf("MCP server '%s' is not connected (%s)", st.Name, st.State)
				if st.Error != "" {
					msg += ": " + st.Error
				}
				if st.StderrTail != "" {
					msg += "\nstderr (last lines):\n" + st.StderrTail
				}
				return &exitError{code: exitFailure, err: errors.New(msg)}
			case asJSON:
				return printJSON(ios.Out, st.Tools)
			}
			mcp.WriteTools(ios.Out, st)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

type mcpAddOptions struct {
	url, transport, bearerEnv      string
	scope                          string
	headers, env, envHeaders       []string
	connectTimeout, executeTimeout float64
	disabled, required             bool
}

func newMCPAddCmd(ios IO, g *globals) *cobra.Command {
	o := &mcpAddOptions{}
	cmd := &cobra.Command{
		Use:   "add NAME [--url URL | -- COMMAND [ARGS...]]",
		Short: "Add a server to mcp.json, or with --scope project to the workspace's .mcp.json",
		Example: "  codewhale mcp add fs -- npx -y @modelcontextprotocol/server-filesystem ~/src\n" +
			"  codewhale mcp add gh -e GITHUB_TOKEN='${GITHUB_TOKEN}' -- npx -y @modelcontextprotocol/server-github\n" +
			"  codewhale mcp add remote --url https://mcp.example.com/mcp --header 'Authorization=Bearer ${MCP_TOKEN}'\n" +
			"  codewhale mcp add --scope project docs --url https://docs.example.com/mcp",
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return runMCPAdd(ios, g, o, args[0], args[1:]) },
	}
	f := cmd.Flags()
	f.StringVar(&o.url, "url", "", "remote server URL (Streamable HTTP)")
	f.StringVar(&o.transport, "transport", "", "remote transport: http (default) or sse (legacy)")
	f.StringArrayVar(&o.headers, "header", nil, "HTTP header NAME=VALUE or 'NAME: VALUE' (repeatable; ${VAR} expands)")
	f.StringArrayVar(&o.envHeaders, "env-header", nil, "HTTP header NAME=ENV_VAR, value read from the environment (repeatable)")
	f.StringVar(&o.bearerEnv, "bearer-token-env-var", "", "environment variable holding a bearer token")
	f.StringArrayVarP(&o.env, "env", "e", nil, "environment variable KEY=VALUE for a stdio server (repeatable; ${VAR} expands)")
	f.StringVar(&o.scope, "scope", "user", "user: the person's mcp.json; project: the workspace's .mcp.json")
	f.Float64Var(&o.connectTimeout, "connect-timeout", 0, "connect timeout in seconds (default: the file's, else 10)")
	f.Float64Var(&o.executeTimeout, "execute-timeout", 0, "tool call timeout in seconds (default: the file's, else 60)")
	f.BoolVar(&o.disabled, "disabled", false, "add the server disabled")
	f.BoolVar(&o.required, "required", false, "mark the server required")
	return cmd
}

// runMCPAdd writes the entry to the scope's file and says where it went,
// warning about a ${VAR} that is not set here.
func runMCPAdd(ios IO, g *globals, o *mcpAddOptions, name string, command []string) error {
	entry, err := o.entry(command)
	if err != nil {
		return err
	}
	var line string
	switch o.scope {
	case "user", "":
		path, err := mcpPath(g)
		if err != nil {
			return err
		}
		if err := mcp.AddServer(path, name, entry); err != nil {
			return err
		}
		line = fmt.Sprintf("Added MCP server '%s' to %s.", name, path)
	case "project":
		pr := mcpProject(g)
		if pr.Workspace == "" {
			return errors.New("--scope project needs a workspace (and no --no-project-config)")
		}
		if line, err = mcp.AddProjectServer(pr, name, entry); err != nil {
			return err
		}
	default:
		return fmt.Errorf("--scope %q: use user or project", o.scope)
	}
	fmt.Fprintf(ios.Out, "%s Test it with `codewhale mcp tools %s`.\n", line, name)
	if unset := mcp.UnsetVars(name, entry); len(unset) > 0 {
		fmt.Fprintf(ios.Err, "warning: %s not set here; the server will not start until it is (see `codewhale mcp validate`)\n",
			strings.Join(unset, ", "))
	}
	return nil
}

// entry builds the new server entry from the flags and the command line.
func (o *mcpAddOptions) entry(command []string) (mcp.NewServer, error) {
	e := mcp.NewServer{URL: o.url, Transport: o.transport, BearerTokenEnvVar: o.bearerEnv,
		ConnectTimeout: o.connectTimeout, ExecuteTimeout: o.executeTimeout, Required: o.required}
	if len(command) > 0 {
		e.Command, e.Args = command[0], command[1:]
	}
	if o.disabled {
		off := false
		e.Enabled = &off
	}
	var err error
	if e.Headers, err = headerPairs(o.headers); err != nil {
		return e, err
	}
	if e.EnvHeaders, err = pairs("--env-header", o.envHeaders); err != nil {
		return e, err
	}
	e.Env, err = pairs("--env", o.env)
	return e, err
}

// pairs parses repeated KEY=VALUE flags.
func pairs(flag string, list []string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%s %q: expected NAME=VALUE", flag, kv)
		}
		out[k] = v
	}
	return out, nil
}

// headerPairs parses --header values written NAME=VALUE or, as curl and
// Claude Code take them, "NAME: VALUE".
func headerPairs(list []string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, h := range list {
		eq, colon := strings.IndexByte(h, '='), strings.IndexByte(h, ':')
		sep := eq
		if colon >= 0 && (eq < 0 || colon < eq) {
			sep = colon
		}
		if sep <= 0 || strings.TrimSpace(h[:sep]) == "" {
			return nil, fmt.Errorf("--header %q: expected NAME=VALUE or 'NAME: VALUE'", h)
		}
		out[strings.TrimSpace(h[:sep])] = strings.TrimSpace(h[sep+1:])
	}
	return out, nil
}

func newMCPRemoveCmd(ios IO, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a server from mcp.json",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			path, err := mcpPath(g)
			if err != nil {
				return err
			}
			if err := mcp.RemoveServer(path, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(ios.Out, "Removed MCP server '%s' from %s.\n", args[0], path)
			return nil
		},
	}
}

func newMCPEnableCmd(ios IO, g *globals, enable bool) *cobra.Command {
	use, verb := "enable", "Enabled"
	if !enable {
		use, verb = "disable", "Disabled"
	}
	return &cobra.Command{
		Use:   use + " NAME",
		Short: strings.ToUpper(use[:1]) + use[1:] + " a server in mcp.json",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			path, err := mcpPath(g)
			if err != nil {
				return err
			}
			if err := mcp.SetEnabled(path, args[0], enable); err != nil {
				return err
			}
			fmt.Fprintf(ios.Out, "%s MCP server '%s' in %s. Running sessions apply it with `/mcp reload`.\n", verb, args[0], path)
			return nil
		},
	}
}

func newMCPValidateCmd(ios IO, g *globals) *cobra.Command {
	var connect bool
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check mcp.json without starting servers (--connect: start them and report)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			path, err := mcpPath(g)
			if err != nil {
				return err
			}
			v, err := mcp.Validate(path, mcpProject(g))
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			ok := mcp.WriteChecks(ios.Out, v)
			if connect {
				ok = validateConnect(ios, g) && ok
			}
			if !ok {
				return &exitError{code: exitFailure}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&connect, "connect", false, "also start every enabled server and report whether it connects")
	return cmd
}

// validateConnect starts every enabled server and reports; false when any
// enabled server did not connect.
func validateConnect(ios IO, g *globals) bool {
	pool, err := startPool(g)
	if err != nil {
		fmt.Fprintln(ios.Err, "error:", err)
		return false
	}
	defer pool.Close()
	fmt.Fprintln(ios.Out)
	mcp.WriteStatuses(ios.Out, pool.Path(), pool.ConfigError(), pool.Statuses())
	for _, st := range pool.Statuses() {
		if st.State == mcp.StateFailed || st.State == mcp.StateConfigError {
			return false
		}
	}
	return pool.ConfigError() == nil
}
