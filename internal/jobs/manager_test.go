package jobs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakeclock"
)

// CONTRACT.md §12.1: a running job with no output for 60 s is flagged silent.
func TestListOrderSilenceAndEviction(t *testing.T) {
	t.Parallel()
	clock := fakeclock.At(time.Unix(1_700_000_000, 0))
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

// CONTRACT.md §12.1: finished jobs are reported to the model once.
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
