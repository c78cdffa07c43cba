// Package acp is codewhale's Agent Client Protocol agent (ARCHITECTURE.md
// §9): `codewhale acp` speaks JSON-RPC 2.0 over stdio, newline-delimited,
// through github.com/coder/acp-go-sdk, and drives one engine per session.
// It is one more consumer of the engine's typed events beside the TUI and
// exec: it never forks the turn loop, and what it sends the client is
// translated from engine.Event values.
package acp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/mcp"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools/file"
	"github.com/codewhale/codewhale/internal/tools/work"
)

// DefaultPermissionWait bounds how long a permission request waits for the
// client: a client that never answers denies the call, it does not hang
// the turn.
const DefaultPermissionWait = 5 * time.Minute

// OpenOptions is what one session is opened with.
type OpenOptions struct {
	// Cwd is the session's workspace, an absolute path the client sent.
	Cwd string
	// Load names a saved session to continue ("" opens a new one).
	Load string
	// Editor is the client's file system for the File tool, nil when the
	// client offers none (ARCHITECTURE.md §9).
	Editor file.Editor
	// MCPServers are the MCP servers the client passed for the session.
	MCPServers []mcp.ServerConfig
}

// Backend is one opened session: an engine whose loop the host started
// (app.App.Start), the saved session to sync into it on load, and how to
// release what the host built for it, the engine's loop included.
type Backend struct {
	Engine    *engine.Engine
	SessionID string
	Mode      posture.Mode
	// Resume is the loaded session (nil for a new one); its messages are
	// replayed to the client on session/load.
	Resume *engine.SyncSession
	// Todo is the session's To-do list, reported as the plan (nil: none).
	Todo  *work.Ledger
	Close func()
}

// Options configure the agent.
type Options struct {
	// Open builds one session's engine (cmd/codewhale implements it over
	// internal/app).
	Open func(ctx context.Context, o OpenOptions) (*Backend, error)
	// KeyMissing reports that no API key is configured for the route, so
	// a session cannot run a turn until one is given (authenticate).
	KeyMissing func() bool
	// Version is the agent's version for initialize.
	Version string
	// Log receives the connection's diagnostics; never stdout.
	Log *slog.Logger
	// PermissionWait bounds a permission request (DefaultPermissionWait
	// when zero).
	PermissionWait time.Duration
}

// Agent implements the SDK's Agent over codewhale's engine.
type Agent struct {
	opts Options
	conn *sdk.AgentSideConnection
	ctx  context.Context // the connection's lifetime

	// inflight counts the requests being answered: at the client's EOF
	// their answers are still written before Serve returns.
	inflight atomic.Int64

	mu       sync.Mutex
	caps     sdk.ClientCapabilities
	ready    bool // initialize answered
	sessions map[string]*session
}

// Serve runs the agent on in/out until the client closes the connection or
// ctx ends, then stops every session.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.Open == nil {
		return errors.New("acp: no session opener")
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.PermissionWait <= 0 {
		o.PermissionWait = DefaultPermissionWait
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a := &Agent{opts: o, ctx: ctx, sessions: map[string]*session{}}
	w := &lockedWriter{w: out}
	a.conn = sdk.NewAgentSideConnection(a, w, in)
	a.conn.SetLogger(slog.New(protocolErrors{next: o.Log.Handler(), out: w}))
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
	}
	cancel()
	a.closeAll()
	a.drain(o.Log)
	a.closeAll() // a session opened by a request that was still on its way
	return nil
}

// drain waits, after the client closed its end, until no request is being
// answered. The SDK starts each request's handler on a goroutine of its
// own before it reads the next line, and tells nobody: a request read just
// before the EOF may not have reached its handler yet. So the count must
// stay zero for drainSettle, not just be zero once; the whole wait is
// bounded by drainWait. (This is the one poll here: nothing signals "the
// SDK has a handler not yet started".)
func (a *Agent) drain(log *slog.Logger) {
	deadline := time.Now().Add(drainWait)
	quietSince := time.Now()
	for time.Now().Before(deadline) {
		if a.inflight.Load() != 0 {
			quietSince = time.Now()
		} else if time.Since(quietSince) >= drainSettle {
			return
		}
		time.Sleep(drainPoll)
	}
	log.Warn("requests still unanswered when the connection closed")
}

const (
	drainSettle = 20 * time.Millisecond
	drainPoll   = 2 * time.Millisecond
)

// drainWait bounds how long Serve waits, after the client closed its end,
// for the answers of requests it had sent.
const drainWait = 5 * time.Second

// track counts one request in flight until the returned func runs.
func (a *Agent) track() func() {
	a.inflight.Add(1)
	return func() { a.inflight.Add(-1) }
}

func (a *Agent) closeAll() {
	a.mu.Lock()
	all := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		all = append(all, s)
	}
	a.sessions = map[string]*session{}
	a.mu.Unlock()
	for _, s := range all {
		s.close()
	}
}

// session is the open session id names, or the protocol error a client
// gets for a prompt before session/new (or for an id it never opened).
func (a *Agent) session(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[string(id)]; s != nil {
		return s, nil
	}
	return nil, sdk.NewInvalidParams(map[string]any{"error": "unknown session " + string(id) +
		": call session/new (or session/load) first and use the sessionId it returns"})
}

// Initialize implements sdk.Agent: protocol version 1, prompt content
// types, session loading and the MCP transports a client may pass.
func (a *Agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	defer a.track()()
	a.mu.Lock()
	a.caps, a.ready = p.ClientCapabilities, true
	a.mu.Unlock()
	title := "codewhale"
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true, Image: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true},
		},
		AgentInfo:   &sdk.Implementation{Name: "codewhale", Title: &title, Version: a.opts.Version},
		AuthMethods: authMethods(),
	}, nil
}

// Cancel implements sdk.Agent: the SDK has already cancelled the prompt's
// context, which interrupts the turn; this interrupts it too when the
// prompt is between requests.
func (a *Agent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	if s, err := a.session(p.SessionId); err == nil {
		s.eng.Cancel()
	}
	return nil
}

// NewSession implements sdk.Agent.
func (a *Agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	defer a.track()()
	servers, err := mcpServers(p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	s, err := a.open(ctx, OpenOptions{Cwd: p.Cwd, MCPServers: servers})
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(s.id), Modes: modeState(s.mode())}, nil
}

// open builds a session through the host, which starts its engine.
func (a *Agent) open(ctx context.Context, o OpenOptions) (*session, error) {
	a.mu.Lock()
	ready := a.ready
	a.mu.Unlock()
	if !ready {
		return nil, sdk.NewInvalidRequest(map[string]any{"error": "call initialize first: the session's file access " +
			"depends on the client's capabilities"})
	}
	if o.Cwd == "" {
		return nil, sdk.NewInvalidParams(map[string]any{"error": "cwd is required: the absolute path of the workspace"})
	}
	if a.opts.KeyMissing != nil && a.opts.KeyMissing() {
		return nil, sdk.NewAuthRequired(map[string]any{"error": keyMissingText})
	}
	files := a.editor()
	if files != nil {
		o.Editor = files
	}
	b, err := a.opts.Open(ctx, o)
	if err != nil {
		return nil, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	if files != nil {
		files.session = b.SessionID
	}
	s := newSession(a, b, o.Cwd)
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	return s, nil
}

// Prompt implements sdk.Agent: one turn, its events streamed as
// session/update notifications, answered when the turn ends.
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	defer a.track()()
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	return s.prompt(ctx, p.Prompt)
}

// Unsupported session methods answer "method not found", as an unknown
// method does: the capabilities initialize returned do not offer them.

// CloseSession implements sdk.Agent.
func (a *Agent) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionClose)
}

// ListSessions implements sdk.Agent.
func (a *Agent) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

// ResumeSession implements sdk.Agent.
func (a *Agent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// SetSessionConfigOption implements sdk.Agent.
func (a *Agent) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}
