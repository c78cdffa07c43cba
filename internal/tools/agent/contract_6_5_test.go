package agent_test

import (
	"context"
	"encoding/json"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/agent"
)

// blockingSpawner gives every child a run that holds its slot until it is
// cancelled; started hears of each turn that began.
func blockingSpawner(started chan struct{}) agent.Spawner {
	return agent.SpawnFunc(func(context.Context, agent.ChildConfig) (agent.Run, error) {
		return &blockingRun{started: started}, nil
	})
}

// silentRun is a turn that never shows a sign of life and ends only when
// it is stopped.
type silentRun struct{}

func (silentRun) Turn(ctx context.Context, _ string, _ func(agent.Progress)) agent.Receipt {
	<-ctx.Done()
	return agent.Receipt{Outcome: agent.TurnInterrupted}
}

func (silentRun) Steer(string) {}

// CONTRACT.md §6.5: beyond admission (running plus queued) a start is
// refused with the contract's exact text, its counts the manager's.
func TestContractAdmissionRefusalIsExact(t *testing.T) {
	started := make(chan struct{}, 4)
	m := agent.NewManager(agent.Options{Spawner: blockingSpawner(started), MaxConcurrent: 1, MaxAdmitted: 2})
	t.Cleanup(func() { m.Drain(context.Background(), 0, 5*time.Second) })
	tool := agent.New(m, nil)
	for range 2 {
		if res, err := call(t, tool, `{"prompt":"hold","type":"scout"}`); err != nil || !res.Success {
			t.Fatalf("start: %v %s", err, res.Content)
		}
	}
	<-started
	res, err := call(t, tool, `{"prompt":"one more","type":"scout"}`)
	want := "Sub-agent admission limit reached (max_admitted 2, admitted 2, running 1, queued 1). Wait for queued/running " +
		"agents to finish, cancel unneeded agents, or raise [subagents] max_admitted for this Workflow."
	if err != nil || res.Success || res.Content != want {
		t.Errorf("refusal %v %q\nwant %q", err, res.Content, want)
	}
}

// CONTRACT.md §6.5: a child with no sign of life for the heartbeat (300 s
// by default) is stopped to free its slot, so a queued child runs.
func TestContractSilentChildIsStoppedToFreeItsSlot(t *testing.T) {
	t.Parallel()
	m := agent.NewManager(agent.Options{MaxConcurrent: 1, Heartbeat: 50 * time.Millisecond,
		Spawner: agent.SpawnFunc(func(_ context.Context, cc agent.ChildConfig) (agent.Run, error) {
			if cc.ID == "agent_silent" {
				return silentRun{}, nil
			}
			return doneRun{}, nil
		})})
	t.Cleanup(func() { m.Drain(context.Background(), 0, 5*time.Second) })
	silent, err := m.Start(agent.Spec{Prompt: "say nothing", Name: "silent"})
	if err != nil {
		t.Fatal(err)
	}
	next, err := m.Start(agent.Spec{Prompt: "then me", Name: "next"})
	if err != nil {
		t.Fatal(err)
	}
	if _, settled := m.Wait(context.Background(), []string{silent.ID, next.ID}, "all", 10*time.Second); !settled {
		t.Fatalf("the silent child kept its slot: %+v", m.List())
	}
	if s := silent.Snapshot(); s.Status != agent.StatusInterrupted || !strings.Contains(s.Error, "no progress for 50ms; cancelled to free its slot") {
		t.Errorf("silent child %s: %q", s.Status, s.Error)
	}
	if s := next.Snapshot(); s.Status != agent.StatusCompleted {
		t.Errorf("the queued child %s after the slot freed", s.Status)
	}
}

// CONTRACT.md §6.5: limits of depth — a session's children are one level
// below it and spawn their own only while above the configured depth; a
// nested manager paces its launches with the session's one bucket.
func TestContractDepthLimitAndSharedBucket(t *testing.T) {
	t.Parallel()
	m, rec := typedManager(t, nil)
	if !m.CanSpawn() {
		t.Fatal("the top-level session cannot spawn")
	}
	if _, err := m.Start(agent.Spec{Prompt: "look"}); err != nil {
		t.Fatal(err)
	}
	if _, settled := m.Wait(context.Background(), nil, "all", 10*time.Second); !settled {
		t.Fatal("the child did not finish")
	}
	if cc := rec.last(); cc.Depth != 1 || cc.MaxDepth != 1 {
		t.Errorf("child depth %d of %d, want 1 of 1", cc.Depth, cc.MaxDepth)
	}
	if agent.NewManager(agent.Options{Depth: 1, MaxDepth: 1, Parent: m}).CanSpawn() {
		t.Error("a child at the depth limit may spawn its own")
	}
	nested := agent.NewManager(agent.Options{Depth: 1, MaxDepth: 2, Parent: m})
	if !nested.CanSpawn() || nested.Admission() != m.Admission() {
		t.Error("a nested manager below the limit: cannot spawn, or paces with a bucket of its own")
	}
}

// CONTRACT.md §6.5: a child never gets more authority than the turn that
// starts it — the tool hands the turn's posture, shell and trust to the
// spawner, and without them (no turn) the session's configured ones stand.
func TestContractChildGetsTheStartingTurnsAuthority(t *testing.T) {
	t.Parallel()
	m, rec := typedManager(t, nil)
	auth := agent.Authority{Posture: posture.Ask}
	tool := agent.New(m, nil).Within(auth)
	if res, err := call(t, tool, `{"prompt":"write things","type":"worker"}`); err != nil || !res.Success {
		t.Fatalf("start: %v %s", err, res.Content)
	}
	if _, settled := m.Wait(context.Background(), nil, "all", 10*time.Second); !settled {
		t.Fatal("the child did not finish")
	}
	if got := rec.last().Authority; got == nil || *got != auth {
		t.Errorf("the child was built with authority %+v, want %+v", got, auth)
	}
	if _, err := m.Start(agent.Spec{Prompt: "no turn"}); err != nil {
		t.Fatal(err)
	}
	if _, settled := m.Wait(context.Background(), nil, "all", 10*time.Second); !settled {
		t.Fatal("the child did not finish")
	}
	if got := rec.last().Authority; got != nil {
		t.Errorf("a start outside a turn carries authority %+v", got)
	}
}

// CONTRACT.md §6.5: the start receipt carries agent_id (agent_<8 hex> or
// agent_<name>), status, model and a transcript handle
// {"kind":"var_handle","session_id":"agent:<id>",…} that handle_read reads;
// max_steps defaults to 60 for a read-only role and 120 for others.
func TestContractReceiptHandleAndDefaults(t *testing.T) {
	t.Parallel()
	m, rec := typedManager(t, nil)
	tool := agent.New(m, nil)
	var receipt struct {
		ID         string         `json:"agent_id"`
		Status     string         `json:"status"`
		Model      string         `json:"model"`
		Transcript map[string]any `json:"transcript_handle"`
	}
	for _, c := range []struct {
		in, id string
		steps  int
	}{{`{"prompt":"look","type":"scout"}`, `^agent_[0-9a-f]{8}$`, 60}, {`{"prompt":"build","agent_id":"b-1.x"}`, `^agent_b-1\.x$`, 120}} {
		res, err := call(t, tool, c.in)
		if err != nil || json.Unmarshal([]byte(res.Content), &receipt) != nil {
			t.Fatalf("%s: %v %s", c.in, err, res.Content)
		}
		if !regexp.MustCompile(c.id).MatchString(receipt.ID) || receipt.Status == "" || receipt.Model != "deepseek-v4-pro" ||
			receipt.Transcript["kind"] != "var_handle" || receipt.Transcript["session_id"] != "agent:"+receipt.ID {
			t.Errorf("%s: receipt %+v", c.in, receipt)
		}
		if _, settled := m.Wait(context.Background(), []string{receipt.ID}, "all", 10*time.Second); !settled {
			t.Fatal("the child did not finish")
		}
		if got := rec.last().MaxSteps; got != c.steps {
			t.Errorf("%s: max_steps %d, want %d", c.in, got, c.steps)
		}
	}
	read, err := tools.Execute(context.Background(), agent.NewHandleRead(m), &tools.Context{Workspace: "/"},
		json.RawMessage(`{"session_id":"agent:`+receipt.ID+`"}`))
	if err != nil || !read.Success {
		t.Errorf("handle_read of the receipt's handle: %v %+v", err, read)
	}
}

// CONTRACT.md §6.5: cancellation leaves nothing behind — once a drain has
// cancelled running and queued children, none of their goroutines is left.
func TestContractDrainLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	started := make(chan struct{}, 8)
	m := agent.NewManager(agent.Options{Spawner: blockingSpawner(started), MaxConcurrent: 2})
	for range 5 {
		if _, err := m.Start(agent.Spec{Prompt: "hold"}); err != nil {
			t.Fatal(err)
		}
	}
	<-started
	<-started
	if got := m.Drain(context.Background(), 0, 5*time.Second); len(got) != 5 {
		t.Errorf("drain cancelled %d, want 5", len(got))
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after the drain, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
