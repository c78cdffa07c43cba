package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/mcp"
	"github.com/codewhale/codewhale/internal/secrets"
)

// newMCPLoginCmd is `codewhale mcp login SERVER`: the OAuth 2.1 login of a
// Streamable HTTP server (CONTRACT.md §12.5). The authorization URL is
// printed, and opened in a browser unless --no-browser or none can be.
func newMCPLoginCmd(ios IO, g *globals) *cobra.Command {
	var noBrowser bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "login SERVER",
		Short: "Log in to an HTTP MCP server with OAuth (browser, PKCE); the token goes to the secrets store",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			all, err := mcp.LoadAll(cfg.MCPConfigPath, mcpProject(g))
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			s, ok := all.Servers[args[0]]
			if !ok {
				return &exitError{code: exitFailure, err: fmt.Errorf("no MCP server named '%s' in %s", args[0], cfg.MCPConfigPath)}
			}
			o := mcp.LoginOptions{Tokens: config.MCPTokens{Home: cfg.Home}, Network: cfg.Web.Policy, Out: ios.Err,
				ClientVersion: codewhaleVersion(), Timeout: timeout}
			if !noBrowser {
				o.Open = func(url string) error { return openBrowser(cfg.Env, url) }
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			line, err := mcp.Login(ctx, s, o)
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			fmt.Fprintln(ios.Out, line)
			return nil
		},
	}
	cmd.Flags().BoolVar(&noBrowser, "no-browser", false, "only print the authorization URL")
	cmd.Flags().DurationVar(&timeout, "timeout", mcp.DefaultLoginTimeout, "how long to wait for the browser")
	return cmd
}

// newMCPLogoutCmd is `codewhale mcp logout SERVER`: it removes the stored
// token.
func newMCPLogoutCmd(ios IO, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "logout SERVER",
		Short: "Remove the OAuth token stored for an MCP server",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			line, err := mcp.Logout(config.MCPTokens{Home: cfg.Home}, args[0])
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			fmt.Fprintln(ios.Out, line)
			return nil
		},
	}
}

// openBrowser opens url with $BROWSER, else the platform's opener. With no
// display on Linux there is none: the printed URL is the way.
func openBrowser(env config.Env, url string) error {
	var name string
	var args []string
	switch b := strings.TrimSpace(env("BROWSER")); {
	case b == "none":
		return errors.New("BROWSER=none")
	case b != "":
		f := strings.Fields(b)
		name, args = f[0], f[1:]
	case runtime.GOOS == "darwin":
		name = "open"
	case runtime.GOOS == "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	case env("DISPLAY") == "" && env("WAYLAND_DISPLAY") == "":
		return errors.New("no display")
	default:
		name = "xdg-open"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, append(args, url)...)
	cmd.Env = secrets.Environ()
	return cmd.Run()
}
