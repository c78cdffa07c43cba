package main

import (
	"context"
	"fmt"

	"github.com/codewhale/codewhale/internal/mcp"
)

// mcpProblems reports, before the turn, every MCP problem that would
// otherwise be silent in exec: a malformed mcp.json, and each enabled server
// that did not connect (it failed, timed out or has an unusable entry). One
// stderr line per problem, or one stream-json "mcp_warning" line. Waiting
// for the servers here costs nothing extra: the first request waits for
// them anyway (each at most its connect timeout).
func (p *execPrinter) mcpProblems(ctx context.Context, pool *mcp.Pool) {
	pool.Start(ctx)
	if err := pool.ConfigError(); err != nil {
		p.mcpWarning("", "config_error", err.Error(), "no MCP tools this run; check it with `codewhale mcp validate`")
	}
	for _, st := range pool.Statuses() {
		if st.State != mcp.StateFailed && st.State != mcp.StateConfigError {
			continue
		}
		p.mcpWarning(st.Name, string(st.State), st.Error, "its tools are not available this run; see `codewhale mcp list`")
	}
}

// storeNotices reports what loading the task store had to set aside.
func (p *execPrinter) storeNotices(lines []string) {
	for _, l := range lines {
		if p.streamJSON() {
			p.line("warning", "source", "tasks", "message", l)
			continue
		}
		fmt.Fprintln(p.ios.Err, "warning: "+l)
	}
}

func (p *execPrinter) mcpWarning(server, state, msg, hint string) {
	if p.streamJSON() {
		p.line("mcp_warning", "server", server, "state", state, "error", msg)
		return
	}
	what := fmt.Sprintf("MCP server '%s' %s", server, state)
	if server == "" {
		what = "MCP"
	}
	fmt.Fprintf(p.ios.Err, "warning: %s: %s; %s\n", what, msg, hint)
}
