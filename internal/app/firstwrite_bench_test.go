package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/checkpoint"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/cputime"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/file"
	"github.com/codewhale/codewhale/internal/toolset"
)

// BenchmarkFirstWriteOfATurn times the first write of a turn — a File
// patch of one line in one file of a 20,000-file tree (200 directories of
// 100), after the user edited 5 other files between the turns — from the
// call arriving to its result (ToolCallComplete's StartedAt to
// CompletedAt: the checkpoint ahead of it, the patch, what of the
// checkpoint after it the result waits for), through the real engine, File
// tool and recorder against a scripted model:
//
//   - "turn": the model's first request takes requestGap, during which
//     the turn's base snapshot is taken (what a turn does);
//   - "instant-model": the model answers at once, so the write waits for
//     the whole base (the worst case);
//   - "main": the same calls as main before issue 32 made them, in line
//     (the whole tree looked at ahead of the write, the checkpoint after
//     it before the result), with the CPU time they took;
//   - "git-apply" of the same one-line patch and "git-status" of the tree
//     as the user's own repository: the references, in the same run.
//
// write-ms/op is the mean time from the call to its result (write-p50-ms,
// -p90-ms and -max-ms its distribution); cpu-ms/op is the CPU time (user+system) of this process and
// its git children in the timed part (the references and "main").
func BenchmarkFirstWriteOfATurn(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		e2e.Missing(b, "git is not installed")
	}
	ws := b.TempDir()
	old := time.Now().Add(-time.Hour) // as a checked-out tree is: not racily clean
	for i := 0; i < 20000; i++ {
		p := filepath.Join(ws, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("package d\n\nconst N%d = %d\n", i, i)), 0o644)
		os.Chtimes(p, old, old)
	}
	store, err := checkpoint.Open(b.TempDir(), ws, checkpoint.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := store.Snapshot(context.Background()); err != nil {
		b.Fatal(err)
	}
	rec := checkpoint.NewRecorder(store)
	rec.OnError = func(err error) { b.Fatal(err) }
	const target = "d010/f01000.go"
	var mu sync.Mutex
	line, seq := "const N1000 = 1000", 0
	patch := func() (json.RawMessage, string) { // the next one-line change of target
		mu.Lock()
		defer mu.Unlock()
		seq++
		next := fmt.Sprintf("const N1000 = %d", 100000+seq)
		diff := fmt.Sprintf("--- a/%s\n+++ b/%s\n@@ -3 +3 @@\n-%s\n+%s\n", target, target, line, next)
		line = next
		raw, _ := json.Marshal(map[string]any{"action": "patch", "patch": diff})
		return raw, diff
	}
	betweenTurns := func(turn int) { // the user edits five other files
		for j := 0; j < 5; j++ {
			p := filepath.Join(ws, fmt.Sprintf("d%03d/f%05d.go", 20+j, 2000+j))
			os.WriteFile(p, []byte(fmt.Sprintf("package d\n\n// edited by the user before turn %d\n", turn)), 0o644)
		}
	}
	turns := 0
	for _, c := range []struct {
		name string
		gap  time.Duration
	}{{"turn", requestGap}, {"instant-model", 0}} {
		b.Run(c.name, func(b *testing.B) {
			e, srv := benchEngine(b, ws, rec)
			var requests atomic.Int64
			srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
				if requests.Add(1)%2 == 0 {
					return fakemodel.Text("Done.")
				}
				time.Sleep(c.gap) // the model thinking before its first write
				raw, _ := patch()
				return fakemodel.Tools(fakemodel.Call{ID: "w1", Name: file.Name, Args: string(raw)})
			})
			var took []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				turns++
				betweenTurns(turns)
				e.Submit(engine.SendMessage{Content: "change one line"})
				for done := false; !done; {
					switch ev := (<-e.Events()).(type) {
					case engine.ToolCallComplete:
						if !ev.Result.Success {
							b.Fatalf("patch: %s", ev.Result.Content)
						}
						took = append(took, ev.CompletedAt.Sub(ev.StartedAt))
					case engine.TurnComplete:
						done = true
					}
				}
			}
			b.StopTimer()
			reportTook(b, took)
		})
	}
	b.Run("main", func(b *testing.B) {
		reg := tools.NewRegistry()
		reg.Register(file.New(file.Options{Writable: true, Patch: true}))
		tc := &tools.Context{Workspace: ws}
		var cpu cpuMeter
		var took []time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			turns++
			betweenTurns(turns)
			id := fmt.Sprintf("main-%d-%d", b.N, i)
			raw, _ := patch()
			b.StartTimer()
			at := time.Now()
			cpu.start()
			rec.Begin(benchCtx, "sess", id, "change one line", 0)
			call, err := reg.Prepare(file.Name, raw)
			if err != nil {
				b.Fatal(err)
			}
			res, err := call.Run(benchCtx, tc)
			if err != nil || !res.Success {
				b.Fatalf("patch: %v %s", err, res.Content)
			}
			rec.CallChanged(benchCtx, id, "w1", file.Name, []string{target})
			cpu.stop()
			took = append(took, time.Since(at))
			b.StopTimer()
			rec.Finish(id)
			b.StartTimer()
		}
		cpu.report(b, "cpu-ms/op")
		reportTook(b, took)
	})
	userRepoReferences(b, ws, patch)
}

var benchCtx = context.Background()

// requestGap stands for the model's first request of the turn: a short
// one (a real model's first token with thinking takes longer).
const requestGap = 500 * time.Millisecond

// benchEngine is the real engine, tools and recorder over ws, against a
// scripted model the caller sets up.
func benchEngine(b *testing.B, ws string, rec *checkpoint.Recorder) (*engine.Engine, *fakemodel.Server) {
	srv := fakemodel.New(b)
	svc := toolset.NewServices(toolset.Options{Workspace: ws})
	e := engine.New(engine.Options{Workspace: ws, Model: "deepseek-v4-pro", AutoApprove: true,
		Tools: svc.Toolset, Checkpoints: checkpointer{r: rec},
		NewClient: func(model string) (*provider.Client, error) {
			return provider.New(provider.Config{BaseURL: srv.URL, Model: model})
		}})
	run, cancel := context.WithCancel(context.Background())
	go e.Run(run)
	b.Cleanup(func() {
		cancel()
		for range e.Events() {
		}
	})
	return e, srv
}

func reportTook(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	var sum time.Duration
	for _, d := range took {
		sum += d
	}
	slices.Sort(took)
	b.ReportMetric(float64(sum)/1e6/float64(len(took)), "write-ms/op")
	b.ReportMetric(float64(took[len(took)/2])/1e6, "write-p50-ms")
	b.ReportMetric(float64(took[len(took)*9/10])/1e6, "write-p90-ms")
	b.ReportMetric(float64(took[len(took)-1])/1e6, "write-max-ms")
}

// userRepoReferences times `git apply` of the same kind of one-line patch
// and `git status` of the tree as the user's own repository.
func userRepoReferences(b *testing.B, ws string, patch func() (json.RawMessage, string)) {
	gitDir := filepath.Join(b.TempDir(), "user.git")
	git := func(stdin string, args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "gc.auto=0", "-c", "maintenance.auto=false"}, args...)...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_DIR="+gitDir, "GIT_WORK_TREE="+ws)
		if stdin != "" {
			cmd.Stdin = strings.NewReader(stdin)
		}
		if out, err := cmd.CombinedOutput(); err != nil && args[0] != "update-index" {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("", "init", "-q")
	git("", "add", "-A")
	git("", "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "init")
	git("", "update-index", "--refresh", "-q")
	b.Run("git-apply", func(b *testing.B) {
		var cpu cpuMeter
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			_, diff := patch()
			b.StartTimer()
			cpu.start()
			git(diff, "apply", "-")
			cpu.stop()
		}
		cpu.report(b, "cpu-ms/op")
	})
	b.Run("git-status", func(b *testing.B) {
		var cpu cpuMeter
		for i := 0; i < b.N; i++ {
			cpu.start()
			git("", "status", "--porcelain")
			cpu.stop()
		}
		cpu.report(b, "cpu-ms/op")
	})
}

// cpuMeter adds up the CPU time this process and its waited-for children
// (git) use between start and stop.
type cpuMeter struct{ total, at time.Duration }

func (c *cpuMeter) start() { c.at = cputime.Process() + cputime.Children() }
func (c *cpuMeter) stop()  { c.total += cputime.Process() + cputime.Children() - c.at }
func (c *cpuMeter) report(b *testing.B, unit string) {
	b.ReportMetric(float64(c.total)/1e6/float64(b.N), unit)
}
