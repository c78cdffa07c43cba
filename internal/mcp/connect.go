package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProtocolVersion is the version offered in initialize (CONTRACT.md §12.5):
// the newest the SDK negotiates through initialize. A server answering
// 2025-06-18, 2025-03-26 or 2024-11-05 is accepted (the SDK checks the
// answer against SupportedProtocolVersions). The SDK's 2026-07-28 draft
// (stateless server/discover) is not offered: it replaces the session
// notifications the pool relies on for list_changed.
const ProtocolVersion = "2025-11-25"

// handshake is the outcome of one connection attempt.
type handshake struct {
	sess  *sdk.ClientSession
	tools []*sdk.Tool
	lists serverLists
	err   error
}

// connect starts s and publishes the result. It returns by the server's
// connect timeout even if the server hangs: the attempt then finishes (and
// is cleaned up) in the background.
func (p *Pool) connect(ctx context.Context, s *server) {
	if p.isClosed() {
		s.fail(s.begin(nil).gen, errClosed.Error())
		p.bump()
		return
	}
	d, err := dial(s.cfg, p.opts.Dir, p.opts.Network, p.opts.Tokens)
	c := s.begin(d)
	p.bump()
	defer p.bump()
	if err != nil {
		s.fail(c.gen, err.Error())
		return
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeouts.Connect)
	defer cancel()
	finished := make(chan struct{})
	if !p.spawn(func() {
		defer close(finished)
		p.finish(s, c, p.handshake(cctx, s, c, d), cctx)
	}) {
		s.fail(c.gen, errClosed.Error())
		return
	}
	select {
	case <-finished:
	case <-cctx.Done():
		// The attempt outlived its budget: report it now. When it ends, finish
		// sees the server is no longer connecting and closes the session;
		// Close waits for that.
		s.fail(c.gen, connectFailure(s, cctx, cctx.Err()))
	}
}

// handshake spawns or dials the server, runs initialize and lists tools.
func (p *Pool) handshake(ctx context.Context, s *server, c *conn, d *dialed) handshake {
	client := sdk.NewClient(&sdk.Implementation{Name: ClientName, Version: p.opts.ClientVersion}, &sdk.ClientOptions{
		Logger: p.opts.Logger,
		// No roots, sampling or elicitation: codewhale offers the server nothing.
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			if c.ready.Load() {
				select {
				case c.refresh <- struct{}{}:
				default:
				}
			}
		},
		PromptListChangedHandler:   func(context.Context, *sdk.PromptListChangedRequest) { c.relisted() },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { c.relisted() },
	})
	transport := d.transport
	// Only stdio is traced: the SDK's logging wrapper hides the HTTP
	// connection's session hooks.
	if p.opts.Trace != nil && d.proc != nil {
		transport = &sdk.LoggingTransport{Transport: transport, Writer: p.opts.Trace}
	}
	sess, err := client.Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		closeConn(c, nil)
		return handshake{err: err}
	}
	list, err := listTools(ctx, sess, s.cfg)
	if err != nil {
		closeConn(c, sess)
		return handshake{err: err}
	}
	return handshake{sess: sess, tools: list, lists: fetchLists(ctx, sess)}
}

// relisted asks the refresher to list resources and prompts again.
func (c *conn) relisted() {
	if c.ready.Load() {
		select {
		case c.relist <- struct{}{}:
		default:
		}
	}
}

// finish publishes a completed handshake and starts watching the session.
func (p *Pool) finish(s *server, c *conn, h handshake, ctx context.Context) {
	if h.err != nil {
		msg := connectFailure(s, ctx, h.err)
		if exit := c.proc.exitState(); exit != "" && ctx.Err() == nil {
			msg = fmt.Sprintf("the server exited during startup (%s): %v", exit, h.err)
		}
		s.fail(c.gen, msg)
		return
	}
	if !s.connected(c, h) || !p.spawn(func() { p.watch(s, c) }) {
		closeConn(c, h.sess)
		return
	}
	p.spawn(func() { p.refresher(s, c) })
}

// watch marks the server failed when its session ends without being
// stopped: the process exited or the HTTP session broke.
func (p *Pool) watch(s *server, c *conn) {
	err := c.sess.Wait()
	close(c.done)
	killGroup(c.proc.pid())
	msg := "the server closed the connection"
	if err != nil {
		msg = fmt.Sprintf("the server closed the connection (%v)", err)
	}
	if c.stale == nil || !c.stale.Load() {
		if s.degrade(c.gen, msg) {
			p.opts.Logger.Warn("MCP server lost; reconnecting", "server", s.cfg.Name, "reason", msg)
			p.bump()
			p.spawn(func() { p.supervise(s) })
			return
		}
	}
	if s.fail(c.gen, msg) {
		p.opts.Logger.Warn("MCP server stopped", "server", s.cfg.Name, "reason", msg)
		p.bump()
	}
}

// refresher re-lists the tools when the server says they changed.
func (p *Pool) refresher(s *server, c *conn) {
	for {
		select {
		case <-c.done:
			return
		case <-c.refresh:
			ctx, cancel := context.WithTimeout(context.Background(), s.timeouts.Read)
			list, err := listTools(ctx, c.sess, s.cfg)
			cancel()
			if err != nil {
				p.opts.Logger.Warn("MCP tools/list refresh failed", "server", s.cfg.Name, "err", err)
				continue
			}
			if s.setTools(c, list) {
				p.bump()
			}
		case <-c.relist:
			ctx, cancel := context.WithTimeout(context.Background(), s.timeouts.Read)
			l := fetchLists(ctx, c.sess)
			cancel()
			if s.setLists(c, l) {
				p.bump()
			}
		}
	}
}

// markLost records that a call found the connection gone, before the
// watcher notices, so the caller's error and the state agree.
func (p *Pool) markLost(s *server, c *conn, err error) {
	msg := fmt.Sprintf("the connection was lost (%v)", err)
	if !errors.Is(err, sdk.ErrSessionMissing) && (c.stale == nil || !c.stale.Load()) && s.degrade(c.gen, msg) {
		p.bump()
		p.spawn(func() { p.supervise(s) })
		return
	}
	if s.fail(c.gen, msg) {
		p.bump()
	}
}

// maxReconnects is how many times the supervisor reconnects a lost server
// (after 0.5s, 1s, 2s) before it is failed.
const maxReconnects = 3

// reconnectDelay is the wait before attempt n (1-based).
func reconnectDelay(n int) time.Duration { return 500 * time.Millisecond << (n - 1) }

// supervise reconnects a degraded server, keeping its last good tools,
// until it is back, reloaded or stopped, or maxReconnects attempts failed.
func (p *Pool) supervise(s *server) {
	gen := s.generation()
	for n := 1; n <= maxReconnects; n++ {
		select {
		case <-time.After(reconnectDelay(n)):
		case <-p.done:
			return
		}
		if !s.nextAttempt(gen, n) {
			return
		}
		p.bump()
		p.connect(context.Background(), s)
		if st := s.status(); st.State == StateConnected || !st.Degraded {
			return
		}
		gen = s.generation()
	}
	if s.giveUp(gen) {
		p.opts.Logger.Warn("MCP server failed after reconnecting", "server", s.cfg.Name)
		p.bump()
	}
}

// stopAll stops the given servers concurrently.
func (p *Pool) stopAll(list []*server) {
	var wg sync.WaitGroup
	for _, s := range list {
		c := s.detach(StatePending, "")
		if c == nil || c.sess == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			closeConn(c, c.sess)
		}()
	}
	wg.Wait()
	p.bump()
}

// closeConn closes a session (sess may be nil when the handshake failed)
// and ends the stdio server's process group.
func closeConn(c *conn, sess *sdk.ClientSession) {
	if sess != nil {
		_ = sess.Close()
	}
	killGroup(c.proc.pid())
}

// connectFailure explains a failed start, naming the timeout when it hit.
// A server that needs a login says so first, the contract's prefix
// (CONTRACT.md §12.5), not behind the SDK's wrapping.
func connectFailure(s *server, ctx context.Context, err error) string {
	var login *LoginRequiredError
	switch {
	case errors.As(err, &login):
		return login.Error()
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("no answer within the connect timeout (%s); raise \"connect_timeout\" for '%s' if the server is slow to start",
			secs(s.timeouts.Connect), s.cfg.Name)
	case ctx.Err() != nil:
		return "start cancelled"
	}
	return "could not start: " + err.Error()
}
