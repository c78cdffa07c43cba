package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools/agent"
)

// childWriteUnder runs one parent turn of a TUI session started under
// posture p (then switched to narrow, when set) whose model starts a
// worker; the person approves the start, and the worker writes child.txt.
// It reports whether that write landed.
func childWriteUnder(t *testing.T, p posture.Posture, narrow *posture.Posture) bool {
	t.Helper()
	srv := fakemodel.New(t)
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		switch {
		case lastRole(r) == "user" && lastUserHas(r, "write child.txt"):
			return fileWrite("w1", "child.txt", "from the child")
		case lastRole(r) == "user" && lastUserHas(r, "delegate"):
			return fakemodel.Tools(fakemodel.Call{ID: "a1", Name: "agent", Args: `{"prompt":"write child.txt","type":"worker"}`})
		}
		return fakemodel.Text("done")
	})
	a := newPromptApp(t, composition{name: "probe", mode: posture.Act, posture: p, tui: true}, srv)
	a.Agents = agent.NewManager(agent.Options{Spawner: agent.SpawnFunc(a.spawnChild), TranscriptDir: t.TempDir()})
	a.Services.Agents = a.Agents
	parent := engine.New(a.EngineOptions())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go parent.Run(ctx)
	if narrow != nil {
		parent.Submit(engine.ChangeMode{Posture: narrow})
	}
	parent.Submit(engine.SendMessage{Content: "delegate"})
	for done := false; !done; {
		select {
		case ev := <-parent.Events():
			switch ev := ev.(type) {
			case engine.ApprovalRequired:
				parent.Submit(engine.ApproveToolCall{ID: ev.ID})
			case engine.TurnComplete:
				done = true
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the parent's turn did not complete")
		}
	}
	go func() {
		for range parent.Events() {
		}
	}()
	if _, settled := a.Agents.Wait(ctx, nil, "all", 20*time.Second); !settled {
		t.Fatal("the child did not finish")
	}
	if s := a.Agents.List(); len(s) != 1 {
		t.Fatalf("children %+v; the parent's model saw %v", s, toolResultsOf(srv.Requests()[len(srv.Requests())-1]))
	}
	_, err := os.Stat(filepath.Join(a.Cfg.Workspace, "child.txt"))
	return err == nil
}

// CONTRACT.md §6.5: a child never gets more authority than its parent — it
// is started under the posture of the parent's turn as it is now, so a
// session started in Auto-Review and narrowed to Ask starts a worker that
// cannot auto-approve the writes its parent would now be asked about.
func TestContractChildTakesTheParentsNarrowedPosture(t *testing.T) {
	t.Parallel()
	ask := posture.Ask
	if childWriteUnder(t, posture.AutoReview, &ask) {
		t.Error("the parent narrowed to Ask, yet its child auto-approved a write under the start-up Auto-Review")
	}
}

// CONTRACT.md §6.5: the authority a child is started within is what its
// engine runs under (the control of the test above: an Auto-Review turn's
// child auto-approves the write Auto-Review allows; an Ask turn's cannot,
// whatever the session was started with).
func TestContractChildRunsUnderTheStartingTurnsAuthority(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		started, turn posture.Posture
		wrote         bool
	}{{posture.Ask, posture.AutoReview, true}, {posture.AutoReview, posture.Ask, false}} {
		srv := fakemodel.New(t)
		srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
			if lastRole(r) == "user" {
				return fileWrite("w1", "child.txt", "from the child")
			}
			return fakemodel.Text("done")
		})
		a := newPromptApp(t, composition{name: "probe", mode: posture.Act, posture: tt.started, tui: true}, srv)
		m := agent.NewManager(agent.Options{Spawner: agent.SpawnFunc(a.spawnChild), TranscriptDir: t.TempDir()})
		t.Cleanup(func() { m.Drain(context.Background(), 0, agentSettle) })
		if _, err := m.Start(agent.Spec{Prompt: "write child.txt", Authority: &agent.Authority{Posture: tt.turn}}); err != nil {
			t.Fatal(err)
		}
		if _, settled := m.Wait(context.Background(), nil, "all", 20*time.Second); !settled {
			t.Fatal("the child did not finish")
		}
		if _, err := os.Stat(filepath.Join(a.Cfg.Workspace, "child.txt")); (err == nil) != tt.wrote {
			t.Errorf("started %v, turn %v: the child wrote = %v, want %v", tt.started, tt.turn, err == nil, tt.wrote)
		}
	}
}

// CONTRACT.md §6.5: a child's authority is bounded by its parent's as it
// is now, not only when it starts — a parent narrowed while its worker
// runs (Shift+Tab from Auto-Review to Ask) narrows the worker from its next
// step, so the worker's second write is not auto-approved.
func TestContractNarrowingTheParentNarrowsARunningChild(t *testing.T) {
	t.Parallel()
	atSecond, narrowed := make(chan struct{}), make(chan struct{})
	var n atomic.Int32
	srv := fakemodel.New(t)
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		switch n.Add(1) {
		case 1:
			return fileWrite("w1", "first.txt", "under Auto-Review")
		case 2:
			// The child is between steps: the parent narrows now.
			close(atSecond)
			<-narrowed
			args, _ := json.Marshal(map[string]any{"action": "read", "path": "first.txt"})
			return fakemodel.Tools(fakemodel.Call{ID: "r1", Name: "File", Args: string(args)})
		case 3:
			return fileWrite("w2", "second.txt", "after the parent narrowed")
		}
		return fakemodel.Text("done")
	})
	a := newPromptApp(t, composition{name: "probe", mode: posture.Act, posture: posture.AutoReview, tui: true}, srv)
	parent := engine.New(a.EngineOptions())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go parent.Run(ctx)
	m := agent.NewManager(agent.Options{Spawner: agent.SpawnFunc(a.spawnChild), TranscriptDir: t.TempDir(),
		Bound: parent.Authority})
	t.Cleanup(func() { m.Drain(context.Background(), 0, agentSettle) })
	auto := agent.Authority{Posture: posture.AutoReview}
	if _, err := m.Start(agent.Spec{Prompt: "write two files", Authority: &auto}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-atSecond:
	case <-time.After(20 * time.Second):
		t.Fatal("the child never made its second request")
	}
	ask := posture.Ask
	parent.Submit(engine.ChangeMode{Posture: &ask})
	for parent.Authority().Posture != posture.Ask {
		select {
		case <-parent.Events():
		case <-time.After(20 * time.Second):
			t.Fatal("the parent never narrowed")
		}
	}
	close(narrowed)
	if _, settled := m.Wait(context.Background(), nil, "all", 20*time.Second); !settled {
		t.Fatal("the child did not finish")
	}
	if _, err := os.Stat(filepath.Join(a.Cfg.Workspace, "first.txt")); err != nil {
		t.Fatalf("the child's first write, under Auto-Review, did not land: %v", err)
	}
	if _, err := os.Stat(filepath.Join(a.Cfg.Workspace, "second.txt")); err == nil {
		t.Error("the parent narrowed to Ask, yet its running child auto-approved a write under Auto-Review")
	}
}
