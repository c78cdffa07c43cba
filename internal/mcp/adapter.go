package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codewhale/codewhale/internal/tools"
)

// AmbiguousMessage is the exact refusal for a model name two (server, tool)
// pairs produce (CONTRACT.md §4.7).
func AmbiguousMessage(name string) string {
	return fmt.Sprintf("Ambiguous MCP tool name '%s' matches more than one server/tool authority", name)
}

// toolDef is the part of a server's tool an adapter needs.
type toolDef struct {
	name        string
	description string
	schema      map[string]any
}

func newToolDef(t *sdk.Tool) *toolDef {
	return &toolDef{name: t.Name, description: t.Description, schema: inputSchema(t.InputSchema)}
}

// inputSchema converts a server's input schema into the map the registry
// validates and the provider receives. "$schema" is dropped (providers
// reject some dialect URLs); a missing or non-object schema becomes an open
// object.
func inputSchema(raw any) map[string]any {
	var m map[string]any
	if b, err := json.Marshal(raw); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	if m == nil {
		m = map[string]any{}
	}
	delete(m, "$schema")
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if m["type"] == "object" {
		if _, ok := m["properties"]; !ok {
			m["properties"] = map[string]any{}
		}
	}
	return m
}

// Adapter is one MCP tool as a codewhale tool: deferred, network and
// approval-required, never read-only (so Plan mode refuses it).
type Adapter struct {
	tools.Spec
	pool   *Pool
	server string
	tool   string
}

func newAdapter(p *Pool, model, server string, t *toolDef) *Adapter {
	desc := t.description
	if desc == "" {
		desc = model
	}
	return &Adapter{pool: p, server: server, tool: t.name, Spec: tools.Spec{
		ToolName: model, Desc: desc, Schema: t.schema,
		Caps:     []tools.Capability{tools.CapNetwork, tools.CapRequiresApproval},
		Deferred: true, Approve: tools.Required,
	}}
}

// Server is the server the tool belongs to.
func (a *Adapter) Server() string { return a.server }

// ServerToolName is the tool's name on its server.
func (a *Adapter) ServerToolName() string { return a.tool }

// Execute calls tools/call on the server with the input as arguments and
// cuts what it returns to the call's budget with a receipt (tools.Sized):
// servers bound nothing.
func (a *Adapter) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	res, err := a.pool.Call(ctx, a.server, a.tool, in)
	return tools.Sized(res, err, tc, "the server's result was longer; ask it for less (a narrower query, a page or a range) if it supports that")
}

// ambiguous is the hidden stand-in for a model name that several (server,
// tool) pairs produce: it is never advertised and refuses every call before
// any server is contacted.
type ambiguous struct{ tools.Spec }

func newAmbiguous(name string) *ambiguous {
	return &ambiguous{tools.Spec{ToolName: name, Desc: AmbiguousMessage(name), Hidden: true, Approve: tools.Auto,
		ReadOnly: true, Schema: map[string]any{"type": "object"}}}
}

func (a *ambiguous) Execute(context.Context, *tools.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{}, tools.ExecutionFailed("%s", AmbiguousMessage(a.ToolName))
}

// Call runs tools/call for tool on server within the server's execute
// timeout. A tool-level error (isError) is a failed Result; a transport
// failure, a timeout or a dead server is an ExecutionFailed error whose
// text starts "MCP tool failed: "; cancelling ctx sends
// notifications/cancelled (the SDK does this) and returns Cancelled.
func (p *Pool) Call(ctx context.Context, serverName, tool string, in json.RawMessage) (tools.Result, error) {
	s := p.lookup(serverName)
	if s == nil {
		return tools.Result{}, tools.ExecutionFailed("MCP tool failed: no MCP server named '%s' is configured", serverName)
	}
	args, err := arguments(in)
	if err != nil {
		return tools.Result{}, err
	}
	res, err := p.callOnce(ctx, s, tool, args)
	if errors.Is(err, errStaleSession) {
		// The HTTP server forgot our session (it restarted): reconnect once.
		p.restart(ctx, []*server{s})
		if fresh := p.lookup(serverName); fresh != nil {
			res, err = p.callOnce(ctx, fresh, tool, args)
		}
	}
	var te *tools.Error
	switch {
	case errors.As(err, &te):
		return tools.Result{}, te
	case err != nil:
		return tools.Result{}, tools.ExecutionFailed("MCP tool failed: %v", err)
	}
	return renderResult(serverName, tool, res), nil
}

func (p *Pool) lookup(name string) *server {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.servers[name]
}

// arguments decodes the tool input into the object sent as "arguments".
func arguments(in json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(in) == 0 {
		return args, nil
	}
	if err := json.Unmarshal(in, &args); err != nil || args == nil {
		return nil, tools.InvalidInput("MCP tool arguments must be a JSON object")
	}
	return args, nil
}

func (p *Pool) callOnce(ctx context.Context, s *server, tool string, args map[string]any) (*sdk.CallToolResult, error) {
	c, err := s.live()
	if errors.Is(err, errStaleSession) {
		return nil, err
	}
	if err != nil {
		return nil, tools.ExecutionFailed("MCP tool failed: %v", err)
	}
	limit := s.timeouts.Execute
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	res, err := c.sess.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	switch {
	case err == nil:
		return res, nil
	case ctx.Err() != nil:
		return nil, tools.Cancelled(fmt.Sprintf("MCP tool '%s' on server '%s' was cancelled; the server was told to stop (notifications/cancelled).", tool, s.cfg.Name))
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return nil, tools.ExecutionFailed("MCP tool failed: MCP method 'tools/call' on server '%s' timed out after %s", s.cfg.Name, secs(limit))
	case errors.Is(err, sdk.ErrSessionMissing) || (c.stale != nil && c.stale.Load()):
		p.markLost(s, c, err)
		return nil, fmt.Errorf("%w: %v", errStaleSession, err)
	case lostConnection(err):
		p.markLost(s, c, err)
		return nil, tools.ExecutionFailed("MCP tool failed: server '%s' stopped during the call (%v). Restart it with `/mcp reload %s`.%s",
			s.cfg.Name, err, s.cfg.Name, stderrHint(c))
	}
	return nil, tools.ExecutionFailed("MCP tool failed: %v", err)
}

// lostConnection reports whether err means the session is gone.
func lostConnection(err error) bool {
	return errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// stderrHint is the last lines of a stdio server's stderr, for an error.
func stderrHint(c *conn) string {
	if c.stderr == nil {
		return ""
	}
	t := c.stderr.String()
	if t == "" {
		return ""
	}
	return "\nLast lines of the server's stderr:\n" + lastLines(t, 5)
}

// secs renders a duration as the contract's "<n>s".
func secs(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
