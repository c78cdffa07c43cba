package acp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
)

// The SDK drops a line it cannot decode with a log entry and no answer.
// JSON-RPC 2.0 wants a Parse error (-32700, id null) for a line that is
// not JSON and an Invalid Request (-32600) for JSON that is not a request
// object. protocolErrors answers both from the SDK's own log records
// (github.com/coder/acp-go-sdk v0.13.0, connection.go: "failed to parse
// incoming message" with the line as "raw", "received message with
// neither id nor method"), so a broken client learns what it sent without
// a second parse of every line: the inbound path stays the SDK's alone.
// TestACPProtocolErrors fails if an SDK release rewords them.
const (
	sdkParseFailed = "failed to parse incoming message"
	sdkNoMethod    = "received message with neither id nor method"

	parseError     = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":{"error":"the line is not JSON; send one JSON-RPC 2.0 object per line"}}}` + "\n"
	invalidRequest = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request","data":{"error":"send one JSON-RPC 2.0 request object per line (ACP uses no batches)"}}}` + "\n"
)

// lockedWriter makes each Write atomic: the SDK writes one whole message
// per Write, and an error answer must not land inside one.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// protocolErrors is the slog.Handler the SDK's connection logs to: it
// answers the lines the SDK dropped, then passes every record on.
type protocolErrors struct {
	next slog.Handler
	out  io.Writer
}

func (h protocolErrors) Enabled(context.Context, slog.Level) bool { return true }

func (h protocolErrors) Handle(ctx context.Context, r slog.Record) error {
	switch r.Message {
	case sdkParseFailed:
		answer := parseError
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "raw" && json.Valid([]byte(a.Value.String())) {
				answer = invalidRequest
			}
			return true
		})
		_, _ = io.WriteString(h.out, answer)
	case sdkNoMethod:
		_, _ = io.WriteString(h.out, invalidRequest)
	}
	if !h.next.Enabled(ctx, r.Level) {
		return nil
	}
	return h.next.Handle(ctx, r)
}

func (h protocolErrors) WithAttrs(as []slog.Attr) slog.Handler {
	return protocolErrors{next: h.next.WithAttrs(as), out: h.out}
}

func (h protocolErrors) WithGroup(name string) slog.Handler {
	return protocolErrors{next: h.next.WithGroup(name), out: h.out}
}
