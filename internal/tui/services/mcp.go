package services

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/mcp"
	"github.com/codewhale/codewhale/internal/tui/slash"
)

// MCPUsage is /mcp's usage line.
const MCPUsage = "Usage: /mcp [list|reload [server]|login <server>|trust]"

// MCP is /mcp: the servers with their transport, state, protocol,
// tool/resource/prompt counts and last error; reload (reconnect) restarts
// one or all off the UI goroutine; login says how to sign in; trust
// trusts the workspace's .mcp.json.
func (sv *Services) MCP(host Host, arg string) tea.Cmd {
	pool := sv.c.MCP
	if pool == nil {
		host.System("MCP is off in this session (--no-mcp).")
		return nil
	}
	verb, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(verb) {
	case "", "list":
		// Off the UI goroutine: a server still connecting is waited for
		// (at most its connect timeout), so the listing says how it went.
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			pool.Start(ctx)
			return NoteMsg{Text: mcpListing(pool)}
		}
	case "reload", "reconnect", "restart":
		var names []string
		if rest != "" {
			names = strings.Fields(rest)
		}
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := pool.Reload(ctx, names...); err != nil {
				return NoteMsg{Text: "Error: " + err.Error()}
			}
			return NoteMsg{Text: mcpListing(pool)}
		}
	case "login":
		if rest == "" {
			host.SystemError("Usage: /mcp login <server>")
			return nil
		}
		if _, ok := pool.Status(rest); !ok {
			host.SystemError(fmt.Sprintf("No MCP server named '%s' in %s.", rest, pool.Path()))
			return nil
		}
		host.System(fmt.Sprintf("Sign in from a shell: `codewhale mcp login %s` (it opens the browser, or prints the URL), then `/mcp reload %s`.", rest, rest))
	case "trust":
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			line, err := pool.TrustProject(ctx)
			if err != nil {
				return NoteMsg{Text: "Error: " + err.Error()}
			}
			return NoteMsg{Text: line}
		}
	default:
		host.SystemError(MCPUsage)
	}
	return nil
}

// mcpListing is /mcp's text.
func mcpListing(pool *mcp.Pool) string {
	var b strings.Builder
	if err := pool.ConfigError(); err != nil {
		fmt.Fprintf(&b, "Error in %s: %v\n", pool.Path(), err)
	}
	list := pool.Statuses()
	if len(list) == 0 {
		fmt.Fprintf(&b, "No MCP servers. Add one with `codewhale mcp add <name> -- <command> [args…]` (%s).", pool.Path())
		return b.String()
	}
	fmt.Fprintf(&b, "MCP servers (%s):\n", pool.Path())
	for _, st := range list {
		state := string(st.State)
		if st.Degraded {
			state += fmt.Sprintf(", reconnecting (attempt %d of 3)", max(st.Reconnect, 1))
		}
		if st.Lazy && st.State == mcp.StatePending {
			state += " (lazy: connects on first use; /mcp reload " + st.Name + " connects it now)"
		}
		fmt.Fprintf(&b, "  %s  %s  %s", st.Name, orDash(st.Transport), state)
		if st.ProtocolVersion != "" {
			fmt.Fprintf(&b, "  protocol %s", st.ProtocolVersion)
		}
		b.WriteString("\n")
		if st.State == mcp.StateConnected || st.Degraded {
			fmt.Fprintf(&b, "      %d tools · %s · %s\n", len(st.Tools), countOf(st.OffersResources, st.Resources, "resources", st.Templates),
				countOf(st.OffersPrompts, len(st.Prompts), "prompts", -1))
			for _, pr := range st.Prompts {
				fmt.Fprintf(&b, "      /%s%s\n", slash.PromptCommand(st.Name, pr.Name), slash.PromptUsage(pr, " "))
			}
		}
		if st.Target != "" {
			fmt.Fprintf(&b, "      %s\n", st.Target)
		}
		for _, e := range []string{st.Error, st.ListError} {
			if e != "" {
				fmt.Fprintf(&b, "      last error: %s\n", firstLine(e, 300))
			}
		}
	}
	b.WriteString("/mcp reload [server] reconnects · /mcp login <server> signs in · @server:uri attaches a resource")
	return b.String()
}

func countOf(offered bool, n int, what string, templates int) string {
	if !offered {
		return "no " + what
	}
	s := fmt.Sprintf("%d %s", n, what)
	if templates > 0 {
		s += fmt.Sprintf(" (+%d templates)", templates)
	}
	return s
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
