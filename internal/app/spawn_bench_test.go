package app

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
	"github.com/codewhale/codewhale/internal/tools/agent"
)

// firstRequests answers every request with text and hands on when each
// one arrived.
func firstRequests(b *testing.B) (*fakemodel.Server, chan time.Time) {
	srv := fakemodel.New(b)
	arrived := make(chan time.Time, 64)
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		arrived <- r.At
		return fakemodel.Text("done")
	})
	return srv, arrived
}

// BenchmarkSubagentFirstRequest is the time from agent.Manager.Start to
// the child's first request reaching the provider (CONTRACT.md §6.5: under
// 20 ms): admission, the child's engine, registry and system prompt.
func BenchmarkSubagentFirstRequest(b *testing.B) {
	srv, arrived := firstRequests(b)
	a := newPromptApp(b, composition{name: "bench", mode: posture.Act, auto: true}, srv)
	a.Project() // loaded once per session, before any child
	ctx := context.Background()
	var total time.Duration
	for i := range b.N {
		start := time.Now()
		c, err := a.Agents.Start(agent.Spec{Prompt: fmt.Sprintf("look around, pass %d", i), Role: "scout"})
		if err != nil {
			b.Fatal(err)
		}
		total += (<-arrived).Sub(start)
		if _, settled := a.Agents.Wait(ctx, []string{c.ID}, "completion", 10*time.Second); !settled {
			b.Fatal("the child did not finish")
		}
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-request/op")
}

// BenchmarkSessionFirstRequest is the reference measured in the same run:
// from building a session's engine (as a host does) to its first request
// reaching the provider.
func BenchmarkSessionFirstRequest(b *testing.B) {
	srv, arrived := firstRequests(b)
	a := newPromptApp(b, composition{name: "bench", mode: posture.Act, auto: true}, srv)
	a.Project()
	var total time.Duration
	for i := range b.N {
		start := time.Now()
		ctx, cancel := context.WithCancel(context.Background())
		eng := engine.New(a.EngineOptions())
		go eng.Run(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = eng.RunTurn(ctx, engine.SendMessage{Content: fmt.Sprintf("look around, pass %d", i)}, nil)
		}()
		total += (<-arrived).Sub(start)
		<-done
		cancel()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-request/op")
}

// BenchmarkWorktreeSubagentFirstRequest is the same with worktree: true:
// the git commands that check the checkout and make the worktree come
// first (each is a process).
func BenchmarkWorktreeSubagentFirstRequest(b *testing.B) {
	srv, arrived := firstRequests(b)
	a := newPromptApp(b, composition{name: "bench", mode: posture.Act, auto: true}, srv)
	a.Project()
	repo := gitfixture.New(b)
	repo.Write("README.md", "hello\n")
	repo.Commit("init")
	ctx := context.Background()
	var total time.Duration
	for i := range b.N {
		start := time.Now()
		c, err := a.Agents.Start(agent.Spec{Prompt: "look", Name: fmt.Sprintf("w%d", i), Role: "scout",
			Worktree: &agent.WorktreeRequest{Workspace: repo.Dir}})
		if err != nil {
			b.Fatal(err)
		}
		total += (<-arrived).Sub(start)
		if _, settled := a.Agents.Wait(ctx, []string{c.ID}, "completion", 10*time.Second); !settled {
			b.Fatal("the child did not finish")
		}
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-request/op")
}
