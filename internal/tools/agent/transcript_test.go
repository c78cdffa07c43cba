package agent_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools/agent"
)

// steppedRun is a child turn that reports one history change at a time and
// waits for the test between them.
type steppedRun struct {
	steps []agent.Progress
	ready chan struct{} // a step was reported
	next  chan struct{} // the test checked it
}

func (r *steppedRun) Turn(ctx context.Context, _ string, progress func(agent.Progress)) agent.Receipt {
	for _, p := range r.steps {
		progress(p)
		r.ready <- struct{}{}
		<-r.next
	}
	return agent.Receipt{Outcome: agent.TurnCompleted, Reply: "done"}
}

func (r *steppedRun) Steer(string) {}

func userMsg(s string) provider.Message {
	return provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(s)}}
}

// A child's transcript file grows by appends: every saved message leaves the
// bytes before it, and the file itself, untouched; a compaction appends a
// reset instead of rewriting. A crash that tears the last line loses that
// line only: the transcript still reads, and the next record lands on a
// line of its own.
func TestTranscriptIsAppendedNeverRewritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := &steppedRun{ready: make(chan struct{}), next: make(chan struct{}), steps: []agent.Progress{
		{Start: 0, Messages: []provider.Message{userMsg("first message")}},
		{Start: 1, Messages: []provider.Message{userMsg("second message")}},
		{Start: 2, Messages: []provider.Message{userMsg("third message")}},
		{Start: 0, Messages: []provider.Message{userMsg("summary of all three")}},
		{Start: 1, Messages: []provider.Message{userMsg("after the summary")}},
	}}
	m := agent.NewManager(agent.Options{TranscriptDir: dir,
		Spawner: agent.SpawnFunc(func(context.Context, agent.ChildConfig) (agent.Run, error) { return run, nil })})
	t.Cleanup(func() { m.Drain(context.Background(), 0, 5*time.Second) })
	snap, err := m.Start(agent.Spec{Name: "journal", Prompt: "go", Role: "worker"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, snap.ID+".jsonl")
	var before []byte
	var beforeInfo os.FileInfo
	for i := range run.steps {
		<-run.ready
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		info, _ := os.Stat(path)
		if before != nil && (!bytes.HasPrefix(data, before) || !os.SameFile(info, beforeInfo)) {
			t.Fatalf("step %d rewrote the file instead of appending:\nbefore %s\nafter %s", i, before, data)
		}
		if n := bytes.Count(data[len(before):], []byte("\n")); i > 0 && n != 1 && i != 3 {
			t.Errorf("step %d appended %d lines, want the one message", i, n)
		}
		before, beforeInfo = data, info
		run.next <- struct{}{}
	}
	if _, settled := m.Wait(context.Background(), []string{snap.ID}, "completion", 10*time.Second); !settled {
		t.Fatal("child did not finish")
	}
	want := "[user] summary of all three\n[user] after the summary\n"
	fresh := agent.NewManager(agent.Options{TranscriptDir: dir})
	if text, err := fresh.Transcript(snap.ID); err != nil || text != want {
		t.Fatalf("saved transcript %q, %v; want %q", text, err, want)
	}

	// A crash mid-write: the last line is cut in half.
	data, _ := os.ReadFile(path)
	torn := append(data, []byte(`{"message":{"role":"user","content":[{"type":"text","text":"cut sh`)...)
	if err := os.WriteFile(path, torn, 0o600); err != nil {
		t.Fatal(err)
	}
	if text, err := fresh.Transcript(snap.ID); err != nil || text != want {
		t.Fatalf("after a torn line: %q, %v", text, err)
	}
	// A record of a gone process lands on its own line after the torn one.
	if err := os.WriteFile(path, append(torn[:len(torn):len(torn)],
		[]byte("\n"+`{"schema_version":1,"pid":0,"agent":{"agent_id":"x","status":"running"}}`+"\n"+`{"message":{"role":"use`)...), 0o600); err != nil {
		t.Fatal(err)
	}
	if fixed, err := agent.ReconcileDir(dir); err != nil || strings.Join(fixed, ",") != snap.ID {
		t.Fatalf("reconcile %v %v", fixed, err)
	}
	if rec := record(t, dir, snap.ID); rec["status"] != "interrupted" {
		t.Errorf("state after reconcile %v", rec)
	}
	if text, err := fresh.Transcript(snap.ID); err != nil || text != want {
		t.Fatalf("after reconcile: %q, %v", text, err)
	}
}
