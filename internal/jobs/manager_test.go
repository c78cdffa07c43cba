package jobs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunningJobsAreListedStaleAfterRestart(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "jobs.json")
	first := newTestManager(t, Options{StatePath: state})
	dir := t.TempDir()
	j, err := first.Start(Spec{Command: "sleep 300", Dir: dir, Background: true, LinkedTaskID: "task-7"})
	if err != nil {
		t.Fatal(err)
	}
	var st stateFile
	raw, _ := os.ReadFile(state)
	if err := json.Unmarshal(raw, &st); err != nil || len(st.Jobs) != 1 || st.Jobs[0].ID != j.ID() || st.Jobs[0].Cwd != dir {
		t.Fatalf("state file %s: %v", raw, err)
	}

	second := newTestManager(t, Options{StatePath: state})
	list := second.List()
	if len(list) != 1 {
		t.Fatalf("restarted manager lists %d jobs", len(list))
	}
	s := list[0]
	if !s.Stale || s.Status != Killed || s.StdinAvailable || s.StderrTail != StaleNote ||
		s.ID != j.ID() || s.Command != "sleep 300" || s.LinkedTaskID != "task-7" {
		t.Fatalf("stale record %+v", s)
	}
	if d, err := second.Wait(context.Background(), j.ID(), time.Second, ModelReader); err != nil || d.Status != Killed {
		t.Fatalf("waiting on a stale job: %+v %v", d, err)
	}
	if err := second.MoveToBackground(j.ID()); err == nil {
		t.Fatal("a stale job was treated as live")
	}
	if f := second.FinishedSinceLastAsked(); len(f.Jobs) != 0 {
		t.Fatal("stale jobs are reported as finished work")
	}
	first.Close()
	raw, _ = os.ReadFile(state)
	if err := json.Unmarshal(raw, &st); err != nil || len(st.Jobs) != 0 {
		t.Fatalf("state after close: %s", raw)
	}
}

// A process that runs no job (codewhale tools, a read-only exec) neither
// creates nor rewrites the state file, and so cannot clobber another
// process's records.
func TestNoJobsWritesNoStateFile(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "jobs.json")
	m, err := NewManager(Options{StatePath: state})
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Fatalf("a run with no jobs created %s (%v)", state, err)
	}

	other := []byte(`{"jobs": [{"id": "shell_0abc1234", "command": "sleep 9", "cwd": "/"}]}`)
	idle, err := NewManager(Options{StatePath: state})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(state, other, 0o600); err != nil { // another process's job, written meanwhile
		t.Fatal(err)
	}
	idle.Close()
	if raw, _ := os.ReadFile(state); string(raw) != string(other) {
		t.Fatalf("an idle manager rewrote the state file: %s", raw)
	}
}

func TestCorruptStateFileIsReported(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "jobs.json")
	if err := os.WriteFile(state, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewManager(Options{StatePath: state}); err == nil {
		t.Fatal("a corrupt state file was accepted")
	}
}

func TestListOrderSilenceAndEviction(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	m := newTestManager(t, Options{Clock: clock.Now})
	dir := t.TempDir()
	start := func(cmd string) *Job {
		j, err := m.Start(Spec{Command: cmd, Dir: dir, Background: true})
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	done := func(j *Job) *Job { <-j.Done(); return j }
	completed := done(start("true"))
	failed := done(start("exit 1"))
	timedOut, _ := m.Start(Spec{Command: "sleep 300", Dir: dir, Timeout: 50 * time.Millisecond})
	done(timedOut)
	killed := start("sleep 300")
	if _, _, err := m.Cancel(killed.ID()); err != nil {
		t.Fatal(err)
	}
	running := start("sleep 300")

	clock.Advance(DefaultSilentAfter)
	list := m.List()
	rank := map[string]int{}
	for i, s := range list {
		rank[s.ID] = i
	}
	if rank[running.ID()] != 0 || rank[killed.ID()] != 3 || rank[completed.ID()] != 4 ||
		rank[failed.ID()] > 2 || rank[timedOut.ID()] > 2 {
		t.Fatalf("order %v", list)
	}
	if !list[0].Silent || list[0].Stale {
		t.Fatalf("a running job quiet for 60 s must be silent, not stale: %+v", list[0])
	}

	clock.Advance(DefaultFinishedTTL)
	list = m.List()
	if len(list) != 1 || list[0].ID != running.ID() {
		t.Fatalf("after an hour the finished jobs should be evicted: %v", list)
	}
}

func TestFinishedJobsAreReportedExactlyOnce(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	dir := t.TempDir()
	bg, _ := m.Start(Spec{Command: "echo done-output", Dir: dir, Background: true})
	fg, _ := m.Start(Spec{Command: "echo foreground", Dir: dir})
	waited, _ := m.Start(Spec{Command: "echo seen", Dir: dir, Background: true})
	for _, j := range []*Job{bg, fg, waited} {
		<-j.Done()
	}
	if _, err := m.Wait(context.Background(), waited.ID(), 0, ModelReader); err != nil {
		t.Fatal(err)
	}
	f := m.FinishedSinceLastAsked()
	if len(f.Jobs) != 1 || f.Jobs[0].ID != bg.ID() {
		t.Fatalf("reported %+v, want only %s", f.Jobs, bg.ID())
	}
	for _, want := range []string{"1 background shell job finished", "Task " + bg.ID() + " completed after", "(exit=0)", "Command: echo done-output", "done-output"} {
		if !strings.Contains(f.Text, want) {
			t.Fatalf("report lacks %q:\n%s", want, f.Text)
		}
	}
	if again := m.FinishedSinceLastAsked(); len(again.Jobs) != 0 || again.Text != "" {
		t.Fatalf("reported twice: %+v", again)
	}
}
