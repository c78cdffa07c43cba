package mcp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codewhale/codewhale/internal/mcpname"
)

// server is one configured server and its current connection, if any. The
// connection generation makes late callbacks of a replaced connection
// harmless.
type server struct {
	cfg      *ServerConfig
	timeouts Timeouts

	mu    sync.Mutex
	state State
	err   string
	gen   uint64
	conn  *conn       // set while connecting or connected
	tools []*sdk.Tool // enabled tools, sorted by name, while connected
	init  *sdk.InitializeResult
	lists serverLists // resources and prompts listed at connect or on list_changed
	last  *tail       // stderr of the latest stdio process, kept after it dies
	stale bool        // the last connection failed because the server forgot our session
	// keep: the connection was lost after a good handshake; tools, lists
	// and init are the last good ones, kept (state degraded, or connecting
	// while the supervisor reconnects) so the catalog does not churn.
	keep    bool
	attempt int // the supervisor's current reconnect attempt
}

// conn is one live connection attempt.
type conn struct {
	gen     uint64
	sess    *sdk.ClientSession
	proc    *proc // stdio only
	stderr  *tail
	stale   *atomic.Bool  // HTTP: the server rejected the session id
	ready   atomic.Bool   // handshake done; list_changed now means a refresh
	refresh chan struct{} // tools/list_changed arrived (buffered 1)
	relist  chan struct{} // prompts or resources list_changed arrived (buffered 1)
	done    chan struct{} // closed when the session has ended
}

func newServer(cfg *ServerConfig, t Timeouts) *server {
	s := &server{cfg: cfg, timeouts: t, state: StatePending}
	switch {
	case cfg.Problem != "":
		s.state, s.err = StateConfigError, cfg.Problem
	case !cfg.IsEnabled():
		s.state = StateDisabled
	}
	return s
}

// claim moves a pending server to connecting, so that of two concurrent
// Starts only one connects it; false when it is not pending.
func (s *server) claim() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StatePending {
		return false
	}
	s.state = StateConnecting
	return true
}

// begin records a new connection attempt and returns it.
func (s *server) begin(d *dialed) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	c := &conn{gen: s.gen, refresh: make(chan struct{}, 1), relist: make(chan struct{}, 1), done: make(chan struct{})}
	if d != nil {
		c.proc, c.stderr, c.stale = d.proc, d.stderr, d.stale
		s.last = d.stderr
	}
	if s.keep {
		s.conn, s.state = c, StateConnecting
		return c
	}
	s.conn, s.tools, s.state, s.err, s.stale = c, nil, StateConnecting, "", false
	s.init, s.lists = nil, serverLists{}
	return c
}

// fail marks attempt gen failed with msg; a superseded attempt is ignored.
func (s *server) fail(gen uint64, msg string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen {
		return false
	}
	if s.keep {
		// A reconnect attempt failed, or the lost connection's watcher
		// caught up: still degraded, the last good tools kept.
		s.state, s.err, s.conn = StateDegraded, msg, nil
		return true
	}
	s.stale = s.conn != nil && s.conn.stale != nil && s.conn.stale.Load()
	s.state, s.err, s.conn, s.tools = StateFailed, msg, nil, nil
	s.init, s.lists = nil, serverLists{}
	return true
}

// connected publishes a finished handshake; false when superseded (the
// caller then closes sess).
func (s *server) connected(c *conn, h handshake) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != c.gen || s.state != StateConnecting {
		return false
	}
	c.sess = h.sess
	s.keep, s.attempt = false, 0
	s.state, s.err, s.tools, s.init, s.lists = StateConnected, "", h.tools, h.sess.InitializeResult(), h.lists
	c.ready.Store(true)
	return true
}

// setTools replaces the tool list after a refresh of connection c.
func (s *server) setTools(c *conn, tools []*sdk.Tool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != c.gen || s.state != StateConnected {
		return false
	}
	s.tools = tools
	return true
}

// detach removes the current connection (to stop it) and moves the server
// to state; it returns the connection that must be closed, if any.
func (s *server) detach(state State, msg string) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	c := s.conn
	s.keep, s.attempt = false, 0
	s.conn, s.tools, s.state, s.err = nil, nil, state, msg
	s.init, s.lists = nil, serverLists{}
	return c
}

// live returns the connected session, or an error saying why there is none.
func (s *server) live() (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateConnected && s.conn != nil {
		return s.conn, nil
	}
	if s.state == StateFailed && s.stale {
		return nil, errStaleSession
	}
	if s.keep {
		return nil, fmt.Errorf("MCP server '%s' is degraded: %s; reconnecting (attempt %d of %d), retry shortly or run `/mcp reload %s`",
			s.cfg.Name, s.err, max(s.attempt, 1), maxReconnects, s.cfg.Name)
	}
	return nil, s.unavailableLocked()
}

// errStaleSession marks a call that found the HTTP session forgotten by the
// server; the pool reconnects once and retries.
var errStaleSession = errors.New("the server no longer knows this session (it restarted?)")

func (s *server) unavailableLocked() error {
	name := s.cfg.Name
	switch s.state {
	case StateDisabled:
		return fmt.Errorf("MCP server '%s' is disabled; enable it with `codewhale mcp enable %s`", name, name)
	case StateConfigError:
		return fmt.Errorf("MCP server '%s' has a configuration error: %s", name, s.err)
	case StateConnecting, StatePending:
		return fmt.Errorf("MCP server '%s' is not connected yet (state %s); retry shortly", name, s.state)
	}
	msg := fmt.Sprintf("MCP server '%s' is not running", name)
	if s.err != "" {
		msg += ": " + s.err
	}
	return errors.New(msg + ". Restart it with `/mcp reload " + name + "`.")
}

// status snapshots the server.
func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.cfg.Name, Transport: s.cfg.Transport, Target: target(s.cfg), State: s.state, Error: s.err,
		Required: s.cfg.Required, Warnings: s.cfg.Warnings}
	if s.last != nil {
		st.StderrTail = lastLines(s.last.String(), 20)
	}
	if s.state == StateConnected && s.conn != nil {
		st.PID = s.conn.proc.pid()
	}
	st.Degraded, st.Reconnect, st.Lazy = s.keep, s.attempt, s.cfg.Lazy()
	if s.visibleLocked() && s.init != nil {
		caps := capsOf(s.init)
		st.ProtocolVersion, st.Instructions = s.init.ProtocolVersion, boundInstructions(s.init.Instructions)
		if s.init.ServerInfo != nil {
			st.ServerName = s.init.ServerInfo.Name
		}
		st.OffersResources, st.OffersPrompts = caps.Resources != nil, caps.Prompts != nil
		st.Resources, st.Templates, st.ListError = len(s.lists.resources), len(s.lists.templates), s.lists.err
		st.Prompts = promptInfos(s.lists.prompts)
	}
	for _, t := range s.tools {
		st.Tools = append(st.Tools, ToolInfo{Name: t.Name, ModelName: mcpname.ModelToolName(s.cfg.Name, t.Name), Description: t.Description})
	}
	return st
}

// snapshotTools returns the enabled tools while connected, or the last
// good ones while degraded.
func (s *server) snapshotTools() []*sdk.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.visibleLocked() {
		return nil
	}
	return s.tools
}

// visibleLocked: the server contributes tools (connected, or degraded with
// its last good list).
func (s *server) visibleLocked() bool {
	return s.state == StateConnected || (s.keep && (s.state == StateDegraded || s.state == StateConnecting))
}

// degrade marks a good connection lost: the last good tools are kept and
// true says the caller must start the supervisor. A superseded or
// already degraded connection returns false.
func (s *server) degrade(gen uint64, msg string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen || s.state != StateConnected {
		return false
	}
	s.keep, s.attempt = true, 0
	s.state, s.err, s.conn = StateDegraded, msg, nil
	return true
}

// nextAttempt starts reconnect attempt n if the server is still degraded
// in generation gen (not reloaded, stopped or back).
func (s *server) nextAttempt(gen uint64, n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen || !s.keep || s.state != StateDegraded {
		return false
	}
	s.attempt = n
	return true
}

// generation is the current connection generation.
func (s *server) generation() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// giveUp ends the reconnects: the server is failed and contributes nothing.
func (s *server) giveUp(gen uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen || !s.keep || s.state != StateDegraded {
		return false
	}
	s.keep = false
	s.state, s.err = StateFailed, fmt.Sprintf("%s (gave up after %d reconnect attempts)", s.err, maxReconnects)
	s.tools, s.init, s.lists = nil, nil, serverLists{}
	return true
}

// listTools pages through tools/list, keeps the enabled, well-formed tools
// and sorts them by name.
func listTools(ctx context.Context, sess *sdk.ClientSession, cfg *ServerConfig) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	seen := map[string]bool{}
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if t == nil || t.Name == "" || seen[t.Name] || !cfg.ToolEnabled(t.Name) {
			continue
		}
		seen[t.Name] = true
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
