package automation

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func newStore(t *testing.T, now time.Time) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "automations"))
	if err != nil {
		t.Fatal(err)
	}
	s.Now = func() time.Time { return now }
	return s
}

type enqueued struct {
	mu  sync.Mutex
	ids []string
}

func (e *enqueued) fn(_ context.Context, a Automation, due time.Time) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	id := fmt.Sprintf("task_%d", len(e.ids)+1)
	e.ids = append(e.ids, a.ID+"@"+due.Format(time.RFC3339))
	return id, nil
}

// README.md "Automations": each automation is a file under the automations directory that survives a restart.
func TestCreateSurvivesRestart(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	s := newStore(t, now)
	a, err := s.Create(New{Name: "nightly", Prompt: "run the tests and report", Schedule: "FREQ=DAILY;AT=02:00",
		Timezone: "UTC", Workspace: "/ws", Ceiling: Ceiling{Posture: "ask", AllowShell: true}})
	if err != nil {
		t.Fatal(err)
	}
	if a.NextRun == nil || !a.NextRun.Equal(time.Date(2026, 12, 2, 2, 0, 0, 0, time.UTC)) || a.Status != Active {
		t.Fatalf("%+v", a)
	}
	reopened, _ := Open(s.Dir)
	list, problems, err := reopened.List()
	if err != nil || len(problems) != 0 || len(list) != 1 || list[0].ID != a.ID || list[0].Prompt != "run the tests and report" ||
		!list[0].Ceiling.AllowShell || list[0].Ceiling.AutoApprove {
		t.Fatalf("%v %v %+v", err, problems, list)
	}
	if fi, _ := os.Stat(s.path(a.ID)); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
}

func TestPauseResumeDelete(t *testing.T) {
	t.Parallel()
	s := newStore(t, time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	a, _ := s.Create(New{Prompt: "x", Schedule: "FREQ=HOURLY", Timezone: "UTC"})
	if p, err := s.SetStatus(a.ID, Paused); err != nil || p.Status != Paused {
		t.Fatal(err)
	}
	var q enqueued
	s.Now = func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }
	if fired, _ := s.RunDue(context.Background(), q.fn); len(fired) != 0 {
		t.Fatalf("a paused automation ran: %+v", fired)
	}
	r, err := s.SetStatus(a.ID, Active)
	if err != nil || r.NextRun == nil || !r.NextRun.Equal(time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC)) {
		t.Fatalf("resume re-plans from now: %v %+v", err, r.NextRun)
	}
	if err := s.Delete(a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(a.ID); err == nil {
		t.Fatal("deleted automation still readable")
	}
	if err := s.Delete("auto_nothere"); err == nil || !strings.Contains(err.Error(), "not an automation id") {
		t.Errorf("got %v", err)
	}
}

// Catch-up: three days of missed daily runs make one run now, which says
// how many were missed, and the next run is the first one after now.
// README.md "Automations": missed runs are not replayed: the automation runs once, the run records how many were missed, and the next run is the first after now.
func TestCatchUpRunsOnce(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	s := newStore(t, created)
	a, _ := s.Create(New{Prompt: "digest", Schedule: "FREQ=DAILY;AT=09:00", Timezone: "UTC"})
	s.Now = func() time.Time { return time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC) }
	var q enqueued
	fired, err := s.RunDue(context.Background(), q.fn)
	if err != nil || len(fired) != 1 || len(q.ids) != 1 {
		t.Fatalf("%v %+v %v", err, fired, q.ids)
	}
	got, _ := s.Get(a.ID)
	run := got.History[0]
	if run.Missed != 3 || run.Status != "enqueued" || run.TaskID != "task_1" || !strings.Contains(run.Note, "3 earlier run(s) were missed") {
		t.Errorf("run %+v", run)
	}
	if !got.NextRun.Equal(time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("next %v", got.NextRun)
	}
	if fired, _ := s.RunDue(context.Background(), q.fn); len(fired) != 0 {
		t.Error("ran twice for one due time")
	}
}

func TestOneOffIsDone(t *testing.T) {
	t.Parallel()
	s := newStore(t, time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	a, _ := s.Create(New{Prompt: "release notes", Schedule: "FREQ=ONCE;AT=2026-12-01T09:00", Timezone: "UTC"})
	s.Now = func() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) }
	var q enqueued
	s.RunDue(context.Background(), q.fn)
	got, _ := s.Get(a.ID)
	if got.Status != Done || got.NextRun != nil || len(q.ids) != 1 {
		t.Fatalf("%+v %v", got, q.ids)
	}
	if _, err := s.SetStatus(a.ID, Active); err == nil {
		t.Error("a finished one-off was resumed")
	}
}

// Many schedulers looking at the same moment enqueue the run once.
// README.md "Automations": two processes looking at the same moment start a run once.
func TestRacingSchedulersEnqueueOnce(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "automations")
	base, _ := Open(dir)
	created := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	base.Now = func() time.Time { return created }
	if _, err := base.Create(New{Prompt: "x", Schedule: "FREQ=DAILY;AT=09:00", Timezone: "UTC"}); err != nil {
		t.Fatal(err)
	}
	var count atomic.Int32
	enqueue := func(context.Context, Automation, time.Time) (string, error) {
		count.Add(1)
		return "task", nil
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, _ := Open(dir) // each its own store, as separate processes have
			s.Now = func() time.Time { return time.Date(2026, 12, 1, 9, 0, 1, 0, time.UTC) }
			<-start
			if _, err := s.RunDue(context.Background(), enqueue); err != nil {
				t.Error(err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if n := count.Load(); n != 1 {
		t.Fatalf("%d tasks enqueued for one due run", n)
	}
}

// README.md "Automations": a damaged file is moved aside and reported, a newer one refused and left in place.
func TestDamagedRecordsAreReported(t *testing.T) {
	t.Parallel()
	s := newStore(t, time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	good, _ := s.Create(New{Prompt: "ok", Schedule: "@daily", Timezone: "UTC"})
	os.WriteFile(filepath.Join(s.Dir, "auto_0badc0de.json"), []byte(`{"schema_version":1,"id":"auto_0bad`), 0o600)
	os.WriteFile(filepath.Join(s.Dir, "auto_00000099.json"), []byte(`{"schema_version":99,"id":"auto_00000099","prompt":"p","schedule":"@daily"}`), 0o600)
	list, problems, err := s.List()
	if err != nil || len(list) != 1 || list[0].ID != good.ID || len(problems) != 2 {
		t.Fatalf("%v %+v %+v", err, list, problems)
	}
	var corrupt, future Problem
	for _, p := range problems {
		if strings.Contains(p.Path, "0badc0de") {
			corrupt = p
		} else {
			future = p
		}
	}
	if corrupt.Quarantined == "" || !strings.Contains(corrupt.Reason, "not valid JSON") {
		t.Errorf("corrupt: %+v", corrupt)
	}
	if _, err := os.Stat(corrupt.Quarantined); err != nil {
		t.Errorf("quarantined file missing: %v", err)
	}
	if future.Quarantined != "" || !strings.Contains(future.Reason, "schema_version 99 > 1") {
		t.Errorf("future: %+v", future)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "auto_00000099.json")); err != nil {
		t.Error("a newer record was moved or deleted")
	}
}

// README.md "Automations": the scheduler sleeps until the next due time and then runs it.
func TestSchedulerFiresAtTheDueTime(t *testing.T) {
	t.Parallel()
	s, _ := Open(filepath.Join(t.TempDir(), "a"))
	due := time.Now().Add(300 * time.Millisecond).UTC()
	a, err := s.Create(New{Prompt: "x", Schedule: "FREQ=ONCE;AT=" + due.Format(time.RFC3339Nano), Timezone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	var q enqueued
	sched := NewScheduler(s, q.fn)
	got := make(chan []Fired, 1)
	sched.OnFire = func(f []Fired, err error) { got <- f }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go sched.Run(ctx)
	select {
	case f := <-got:
		if len(f) != 1 || f[0].ID != a.ID || time.Now().Before(due) {
			t.Fatalf("fired %+v at %v (due %v)", f, time.Now(), due)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the scheduler never fired")
	}
}
