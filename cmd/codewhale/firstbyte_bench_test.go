package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// BenchmarkExecTextTurn is issue 34's "exec → first request byte → exit":
// the built binary runs `exec --auto` for one text turn against the local
// fake model. It reports the time from starting the process to the model's
// receiving the request (what the set-up before the first byte costs) and
// to the process's exit; docs/PERFORMANCE.md records them beside crush's
// `crush run` (scripts/bench-turns.sh).
func BenchmarkExecTextTurn(b *testing.B) {
	var mu sync.Mutex
	var arrived time.Time
	srv := fakemodel.New(b)
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
		mu.Lock()
		if arrived.IsZero() {
			arrived = time.Now()
		}
		mu.Unlock()
		return fakemodel.Text("A short answer.")
	})
	home, ws := b.TempDir(), b.TempDir()
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "CODEWHALE_HOME=" + filepath.Join(home, ".codewhale"),
		"CODEWHALE_BASE_URL=" + srv.URL}
	var toRequest, toExit time.Duration
	for b.Loop() {
		mu.Lock()
		arrived = time.Time{}
		mu.Unlock()
		cmd := exec.Command(binary, "exec", "--auto", "say hello")
		cmd.Dir, cmd.Env = ws, env
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("exec: %v\n%s", err, out)
		}
		toExit += time.Since(start)
		mu.Lock()
		toRequest += arrived.Sub(start)
		mu.Unlock()
	}
	b.ReportMetric(float64(toRequest.Microseconds())/1000/float64(b.N), "ms-to-request")
	b.ReportMetric(float64(toExit.Microseconds())/1000/float64(b.N), "ms-to-exit")
}
