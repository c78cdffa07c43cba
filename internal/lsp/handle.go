package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// handle answers what a server sends. It runs on jsonrpc2's reader, so it
// never blocks: every answer is computed from what is at hand. A request
// or notification without params is a request with null params (a server
// may send `workspace/workspaceFolders` so).
func (c *client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	if req.Notif {
		c.notified(req.Method, params)
		return nil, nil
	}
	switch req.Method {
	case "workspace/configuration":
		// No settings are kept per section: null asks the server for its
		// defaults, item by item.
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(params, &p)
		return make([]any, min(len(p.Items), 1000)), nil
	case "workspace/workspaceFolders":
		return []protocol.WorkspaceFolder{{URI: string(protocol.URIFromPath(c.root)), Name: c.root}}, nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false, "failureReason": "codewhale never applies a language server's edits"}, nil
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability",
		"window/showMessageRequest", "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh",
		"workspace/inlayHint/refresh", "workspace/inlineValue/refresh", "workspace/codeLens/refresh",
		"workspace/foldingRange/refresh":
		return nil, nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "codewhale does not handle " + req.Method}
}

// notified handles a notification.
func (c *client) notified(method string, params json.RawMessage) {
	switch method {
	case "textDocument/publishDiagnostics":
		c.onPublish(params)
	case "window/logMessage", "window/showMessage":
		var m struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(params, &m) == nil && m.Type == 1 { // Error
			msg := strings.TrimSpace(m.Message)
			if i := strings.IndexByte(msg, '\n'); i >= 0 {
				msg = msg[:i]
			}
			c.mu.Lock()
			c.lastLog = clip(msg, 200)
			c.mu.Unlock()
		}
	}
}

// errNotReady is a call on a server that is not running.
var errNotReady = errors.New("the server is not running")

// call sends one request to a ready server.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	conn, err := c.live()
	if err != nil {
		return err
	}
	if err := c.bounded(ctx, func() error { return conn.Call(ctx, method, params, result) }); err != nil {
		var re *jsonrpc2.Error
		if errors.As(err, &re) {
			return fmt.Errorf("%s answered %s with an error: %s", c.srv.Name, method, re.Message)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// notify sends one notification to a ready server.
func (c *client) notify(ctx context.Context, method string, params any) error {
	conn, err := c.live()
	if err != nil {
		return err
	}
	return c.bounded(ctx, func() error { return conn.Notify(ctx, method, params) })
}

// stuckGrace is how long a call may take to return once its context ended
// before its write is taken to be stuck.
const stuckGrace = 200 * time.Millisecond

// errStuck is a server that stopped reading what it is sent.
var errStuck = errors.New("it stopped reading its input")

// bounded runs send (a jsonrpc2 write, and for a call the wait for its
// answer) so that ctx bounds it: jsonrpc2 writes to the server's stdin
// without a deadline, and a server that stops reading would block the
// edit forever. A send still running stuckGrace after ctx ended is stuck:
// the server is killed, which fails the write, and send returns.
func (c *client) bounded(ctx context.Context, send func() error) error {
	done := make(chan error, 1)
	go func() { done <- send() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	t := time.NewTimer(stuckGrace)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		c.stop(errStuck)
		<-done
		return errStuck
	}
}

func (c *client) live() (*jsonrpc2.Conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != StateReady {
		return nil, errNotReady
	}
	return c.conn, nil
}

// clip cuts s to n bytes on a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
