package acp

import (
	sdk "github.com/coder/acp-go-sdk"

	"github.com/codewhale/codewhale/internal/mcp"
)

// mcpServers are the MCP servers a client passed in session/new or
// session/load, as codewhale's server entries: stdio (which every agent
// must take) and HTTP (initialize's mcpCapabilities). They are reached as
// mcp.json's servers are: HTTP through the network policy, stdio with the
// environment the client gave.
func mcpServers(in []sdk.McpServer) ([]mcp.ServerConfig, error) {
	var out []mcp.ServerConfig
	for _, s := range in {
		switch {
		case s.Stdio != nil:
			env := map[string]string{}
			for _, v := range s.Stdio.Env {
				env[v.Name] = v.Value
			}
			out = append(out, mcp.ServerConfig{Name: s.Stdio.Name, Command: s.Stdio.Command, Args: s.Stdio.Args, Env: env,
				Transport: "stdio"})
		case s.Http != nil:
			headers := map[string]string{}
			for _, h := range s.Http.Headers {
				headers[h.Name] = h.Value
			}
			out = append(out, mcp.ServerConfig{Name: s.Http.Name, URL: s.Http.Url, Headers: headers, Transport: "http"})
		default:
			return nil, sdk.NewInvalidParams(map[string]any{"error": "codewhale takes MCP servers over stdio and http " +
				"(initialize's mcpCapabilities); sse and acp transports are not offered"})
		}
	}
	return out, nil
}
