package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// serverBin returns the path of an npm-installed MCP server binary.
func serverBin(t testing.TB, name string) string { t.Helper(); return e2e.MCPServerBin(t, name) }

// everythingServer is a stdio server entry for server-everything.
func everythingServer(t testing.TB) map[string]any {
	return map[string]any{"command": "node", "args": []string{serverBin(t, "mcp-server-everything"), "stdio"}}
}

// writeConfig writes an mcp.json with the given servers (and any extra
// top-level keys) into a temp dir and returns its path.
func writeConfig(t testing.TB, servers map[string]any, extra map[string]any) string {
	t.Helper()
	doc := map[string]any{"servers": servers}
	for k, v := range extra {
		doc[k] = v
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startPool creates and starts a pool, closing it when the test ends.
func startPool(t testing.TB, path string, opts Options) *Pool {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	p := NewPool(path, opts)
	t.Cleanup(func() { _ = p.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p.Start(ctx)
	return p
}

func mustStatus(t testing.TB, p *Pool, name string) Status {
	t.Helper()
	st, ok := p.Status(name)
	if !ok {
		t.Fatalf("no status for server %q", name)
	}
	return st
}

func requireConnected(t testing.TB, p *Pool, name string) Status {
	t.Helper()
	st := mustStatus(t, p, name)
	if st.State != StateConnected {
		t.Fatalf("server %q: state %s, error %q, stderr:\n%s", name, st.State, st.Error, st.StderrTail)
	}
	return st
}

// traceBuffer collects the JSON-RPC trace and wakes waiters when a line
// containing a wanted substring arrives.
type traceBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newTrace() *traceBuffer { return &traceBuffer{changed: make(chan struct{})} }

func (b *traceBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	close(b.changed)
	b.changed = make(chan struct{})
	return n, err
}

// waitFor blocks until the trace contains all of subs or ctx ends.
func (b *traceBuffer) waitFor(ctx context.Context, subs ...string) bool {
	for {
		b.mu.Lock()
		text, ch := b.buf.String(), b.changed
		b.mu.Unlock()
		all := true
		for _, s := range subs {
			if !strings.Contains(text, s) {
				all = false
			}
		}
		if all {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

func (b *traceBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
