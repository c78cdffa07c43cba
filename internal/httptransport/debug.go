package httptransport

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"
)

// maxLoggedBody bounds a body logged under --debug=bodies.
const maxLoggedBody = 64 << 10

// debugLog is the process's --debug logger (nil: off) and whether bodies
// are logged too. The CLI sets it once, before any client is built.
type debugLog struct {
	log    *slog.Logger
	bodies bool
}

var debugging atomic.Pointer[debugLog]

// SetDebug makes Client's transports log each request's metadata to log:
// method, host, path (never the query), status, sizes and time; bodies,
// bounded, only when bodies is set. The log's handler redacts secrets
// (internal/logfile); headers are never logged. nil turns it off.
func SetDebug(log *slog.Logger, bodies bool) {
	if log == nil {
		debugging.Store(nil)
		return
	}
	debugging.Store(&debugLog{log: log, bodies: bodies})
}

// logged wraps rt when --debug is on.
func logged(rt http.RoundTripper) http.RoundTripper {
	d := debugging.Load()
	if d == nil {
		return rt
	}
	return &loggingTransport{next: rt, d: d}
}

type loggingTransport struct {
	next http.RoundTripper
	d    *debugLog
}

func (t *loggingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	attrs := []any{"method", req.Method, "host", req.URL.Host, "path", req.URL.Path, "request_bytes", req.ContentLength}
	if t.d.bodies && req.Body != nil && req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(body, maxLoggedBody))
			body.Close()
			attrs = append(attrs, "request_body", string(b))
		}
	}
	resp, err := t.next.RoundTrip(req)
	attrs = append(attrs, "duration_ms", time.Since(start).Milliseconds())
	if err != nil {
		t.d.log.Debug("http request failed", append(attrs, "error", err.Error())...)
		return resp, err
	}
	attrs = append(attrs, "status", resp.StatusCode, "response_bytes", resp.ContentLength,
		"content_type", resp.Header.Get("Content-Type"))
	if id := resp.Header.Get("X-Request-Id"); id != "" {
		attrs = append(attrs, "request_id", id)
	}
	t.d.log.Debug("http response", attrs...)
	if t.d.bodies {
		resp.Body = &bodyLog{ReadCloser: resp.Body, log: t.d.log, path: req.URL.Path}
	}
	return resp, nil
}

// bodyLog keeps the first maxLoggedBody bytes read and logs them at Close.
type bodyLog struct {
	io.ReadCloser
	log  *slog.Logger
	path string
	buf  bytes.Buffer
}

func (b *bodyLog) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if room := maxLoggedBody - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(n, room)])
	}
	return n, err
}

func (b *bodyLog) Close() error {
	b.log.Debug("http response body", "path", b.path, "body", b.buf.String())
	return b.ReadCloser.Close()
}
