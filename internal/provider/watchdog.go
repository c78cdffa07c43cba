package provider

import (
	"context"
	"io"
	"sync/atomic"
	"time"
)

// watchdog ends an attempt whose provider has gone silent. Until the first
// body byte it allows `first` from the start of the request (connect,
// headers and that byte); after it, `idle` between reads. Any byte is life:
// DeepSeek sends SSE `: keep-alive` comments (and a non-streaming request
// blank lines) while a request waits in its queue, so a queued request is
// not a stalled one, even though those bytes are not content.
type watchdog struct {
	first, idle time.Duration
	timer       *time.Timer
	gotByte     atomic.Bool
	fired       atomic.Bool
	firedEarly  atomic.Bool // fired before the first byte
}

// startWatchdog arms the first-byte deadline; expiry cancels the attempt.
func startWatchdog(first, idle time.Duration, cancel context.CancelFunc) *watchdog {
	w := &watchdog{first: first, idle: idle}
	w.timer = time.AfterFunc(first, func() {
		w.firedEarly.Store(!w.gotByte.Load())
		w.fired.Store(true)
		cancel()
	})
	return w
}

func (w *watchdog) stop() { w.timer.Stop() }

// body wraps the response body so reads feed the watchdog.
func (w *watchdog) body(rc io.ReadCloser) io.ReadCloser { return &watchedBody{rc: rc, w: w} }

type watchedBody struct {
	rc io.ReadCloser
	w  *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	w := b.w
	if w.gotByte.Load() {
		// The idle clock counts from when more data is wanted, so a slow
		// consumer (a host busy rendering) never looks like a silent server.
		w.timer.Reset(w.idle)
	}
	n, err := b.rc.Read(p)
	if n > 0 && !w.fired.Load() {
		w.gotByte.Store(true)
		w.timer.Reset(w.idle)
	}
	return n, err
}

func (b *watchedBody) Close() error {
	b.w.stop()
	return b.rc.Close()
}
