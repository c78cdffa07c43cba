package rlm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/handles"
)

func benchTool(b *testing.B, q Querier) (*Tool, string) {
	b.Helper()
	tool := New(Options{ScratchRoot: b.TempDir(), Query: q, Handles: handles.NewStore(0)})
	b.Cleanup(tool.Close)
	return tool, b.TempDir()
}

func run(b *testing.B, tool *Tool, ws, in string) {
	b.Helper()
	res, err := tools.Execute(context.Background(), tool, &tools.Context{Workspace: ws}, []byte(in))
	if err != nil || strings.Contains(res.Content, `"status":"error"`) {
		b.Fatalf("%v %s", err, res.Content)
	}
}

// BenchmarkOpen50MB: rlm open of a 50 MB file (target under 1 s).
func BenchmarkOpen50MB(b *testing.B) {
	tool, ws := benchTool(b, nil)
	os.WriteFile(filepath.Join(ws, "big.log"), []byte(strings.Repeat("0123456789abcdef", 50<<20/16)), 0o644)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, tool, ws, `{"action":"open","name":"big","file_path":"big.log"}`)
	}
}

// BenchmarkEvalRoundTrip: print(1) on a warm kernel (target under 20 ms).
func BenchmarkEvalRoundTrip(b *testing.B) {
	tool, ws := benchTool(b, nil)
	run(b, tool, ws, `{"action":"open","name":"s","content":"x"}`)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, tool, ws, `{"action":"eval","name":"s","code":"print(1)"}`)
	}
}

// BenchmarkBatch16: a 16-slice batch of children that each take 200 ms;
// the ratio to the slowest child is the overhead (target within 10 %).
func BenchmarkBatch16(b *testing.B) {
	child := &fakeChild{delay: 200 * time.Millisecond}
	tool, ws := benchTool(b, child.query)
	run(b, tool, ws, `{"action":"open","name":"s","content":"x"}`)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		run(b, tool, ws, `{"action":"eval","name":"s","code":"sub_query_batch('p', ['s%d' % i for i in range(16)])"}`)
	}
	b.ReportMetric(float64(time.Since(start))/float64(b.N)/float64(child.delay), "x_slowest_child")
}
