package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/tools/agent"
)

// blockingRun is a child turn that runs until it is cancelled, or, when
// stubborn, until the test releases it.
type blockingRun struct {
	stubborn bool
	release  chan struct{}
	started  chan struct{}
}

func (r *blockingRun) Turn(ctx context.Context, _ string, progress func(agent.Progress)) agent.Receipt {
	progress(agent.Progress{})
	r.started <- struct{}{}
	if r.stubborn {
		<-r.release
	} else {
		<-ctx.Done()
	}
	return agent.Receipt{Outcome: agent.TurnInterrupted}
}

func (r *blockingRun) Steer(string) {}

// record is the last state saved for id: the last state line of its
// journal, or an older build's document.
func record(t *testing.T, dir, id string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, id+".jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		data, err = os.ReadFile(filepath.Join(dir, id+".json"))
	}
	if err != nil {
		t.Fatal(err)
	}
	var agent map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var f struct {
			Agent map[string]any `json:"agent"`
		}
		if json.Unmarshal([]byte(line), &f) == nil && f.Agent != nil {
			agent = f.Agent
		}
	}
	if agent == nil {
		t.Fatalf("no state recorded for %s in %s", id, data)
	}
	return agent
}

// Drain cancels what is still live, returns a receipt of it, and leaves no
// record saying "running": a child that ignores its cancel is recorded as
// interrupted once the settle time is over; a queued one as cancelled.
func TestDrainCancelsAndSettlesEveryRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	polite := &blockingRun{started: make(chan struct{}, 1)}
	stubborn := &blockingRun{stubborn: true, release: make(chan struct{}), started: make(chan struct{}, 1)}
	defer close(stubborn.release)
	runs := map[string]agent.Run{"agent_polite": polite, "agent_stubborn": stubborn,
		"agent_queued": &blockingRun{started: make(chan struct{}, 1)}}
	m := agent.NewManager(agent.Options{MaxConcurrent: 2, TranscriptDir: dir,
		Spawner: agent.SpawnFunc(func(_ context.Context, cfg agent.ChildConfig) (agent.Run, error) { return runs[cfg.ID], nil })})
	start := func(name string) {
		if _, err := m.Start(agent.Spec{Name: name, Prompt: "work on " + name + "\nmore detail", Role: "worker"}); err != nil {
			t.Fatal(err)
		}
	}
	start("polite")
	start("stubborn")
	<-polite.started
	<-stubborn.started
	start("queued") // both slots are taken
	began := time.Now()
	got := m.Drain(context.Background(), 0, 300*time.Millisecond)
	if d := time.Since(began); d > 2*time.Second {
		t.Errorf("drain took %v", d)
	}
	var ids []string
	for _, c := range got {
		ids = append(ids, c.ID+"/"+c.Was+"/"+c.Prompt)
	}
	if j := strings.Join(ids, ","); j != "agent_polite/running/work on polite,agent_stubborn/running/work on stubborn,agent_queued/queued/work on queued" {
		t.Errorf("receipt %s", j)
	}
	for id, want := range map[string]string{"agent_polite": "cancelled", "agent_stubborn": "interrupted", "agent_queued": "cancelled"} {
		if rec := record(t, dir, id); rec["status"] != want {
			t.Errorf("%s record status %v, want %s", id, rec["status"], want)
		}
	}
	if _, err := m.Start(agent.Spec{Prompt: "late"}); err == nil {
		t.Error("a drained manager accepted a new child")
	}
}

// Records a gone process left "running" are marked interrupted at the next
// start; a live process's records are left alone.
func TestReconcileDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(id string, pid int, status string) {
		b, _ := json.Marshal(map[string]any{"schema_version": 1, "pid": pid, "agent": map[string]any{"id": id, "status": status}})
		if err := os.WriteFile(filepath.Join(dir, id+".json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// journal writes a current build's record: a state line, a message
	// and, for torn, the first half of a line a crash cut short.
	journal := func(id string, pid int, status string, torn bool) {
		b, _ := json.Marshal(map[string]any{"schema_version": 1, "pid": pid, "agent": map[string]any{"id": id, "status": status}})
		text := string(b) + "\n" + `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}` + "\n"
		if torn {
			text += `{"message":{"role":"assis`
		}
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("agent_gone", 0, "running")
	write("agent_dead", 1<<22+12345, "queued")
	write("agent_live", os.Getpid(), "running")
	write("agent_done", 0, "completed")
	journal("agent_jgone", 0, "running", false)
	journal("agent_jtorn", 0, "running", true)
	journal("agent_jlive", os.Getpid(), "running", true)
	fixed, err := agent.ReconcileDir(dir)
	if err != nil || strings.Join(fixed, ",") != "agent_dead,agent_gone,agent_jgone,agent_jtorn" {
		t.Fatalf("fixed %v, %v", fixed, err)
	}
	for id, want := range map[string]string{"agent_gone": "interrupted", "agent_dead": "interrupted", "agent_live": "running", "agent_done": "completed",
		"agent_jgone": "interrupted", "agent_jtorn": "interrupted", "agent_jlive": "running"} {
		if rec := record(t, dir, id); rec["status"] != want {
			t.Errorf("%s: %v, want %s", id, rec["status"], want)
		}
	}
	if rec := record(t, dir, "agent_gone"); rec["error"] != agent.ExitedError {
		t.Errorf("error %v", rec["error"])
	}
}
