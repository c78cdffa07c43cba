package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"
)

// The pool starts servers concurrently, so starting three servers and
// listing their tools should take about as long as the slowest single one
// (target: at most +20%). Compare:
//
//	go test ./internal/mcp -run '^$' -bench 'Start(One|Three)Server' -benchtime 10x
//
// "everything" runs server-everything (node; its start is CPU-bound, so on
// a machine with fewer free cores than servers the starts compete for CPU).
// "delayed" runs the test binary's Go server with a 300 ms start latency
// that uses no CPU, which isolates the pool's own concurrency.

func BenchmarkStartOneServer(b *testing.B) { benchStart(b, 1) }

func BenchmarkStartThreeServers(b *testing.B) { benchStart(b, 3) }

func benchStart(b *testing.B, n int) {
	kinds := []struct {
		name  string
		entry func(testing.TB) map[string]any
	}{
		{"everything", everythingServer},
		{"delayed", func(tb testing.TB) map[string]any {
			return testServer(tb, map[string]string{"MCP_TEST_START_DELAY": "300ms"})
		}},
	}
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			servers := map[string]any{}
			for i := range n {
				servers[fmt.Sprintf("s%d", i)] = k.entry(b)
			}
			runStarts(b, writeConfig(b, servers, nil))
		})
	}
}

// runStarts times Start (spawn, initialize, tools/list of every server);
// stopping the servers is not timed.
func runStarts(b *testing.B, path string) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for b.Loop() {
		p := NewPool(path, Options{Logger: quiet})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		p.Start(ctx)
		cancel()
		b.StopTimer()
		for _, st := range p.Statuses() {
			if st.State != StateConnected || len(st.Tools) == 0 {
				b.Fatalf("%s: %s %s", st.Name, st.State, st.Error)
			}
		}
		_ = p.Close()
		b.StartTimer()
	}
}
