package automation

import (
	"context"
	"fmt"
	"time"

	"github.com/codewhale/codewhale/internal/filelock"
)

// Enqueue turns one run of a into a durable task and returns its id.
type Enqueue func(ctx context.Context, a Automation, due time.Time) (taskID string, err error)

// Fired is one run RunDue or RunNow started.
type Fired struct {
	ID, Name string
	Run      Run
}

// maxMissed bounds the count of missed runs a catch-up reports.
const maxMissed = 10000

// RunDue enqueues every active automation whose next run has come, once
// each. It holds the store's lock from the check to the record update, so
// two processes looking at the same moment enqueue a run once.
//
// Catch-up rule: an automation whose next run passed while nothing was
// running (codewhale closed, machine asleep) runs once, now — however many
// runs were missed; the run records how many — and is then scheduled for its
// first time after now. A one-off that was missed runs once and is done.
func (s *Store) RunDue(ctx context.Context, enqueue Enqueue) ([]Fired, error) {
	lock, err := filelock.Acquire(ctx, s.lockPath())
	if err != nil {
		return nil, fmt.Errorf("automations: lock: %w", err)
	}
	defer lock.Unlock()
	list, _, err := s.List()
	if err != nil {
		return nil, err
	}
	now := s.Now()
	var fired []Fired
	for i := range list {
		a := &list[i]
		if a.Status != Active || a.NextRun == nil || a.NextRun.After(now) {
			continue
		}
		f, err := s.fire(ctx, a, *a.NextRun, now, enqueue)
		if err != nil {
			return fired, err
		}
		fired = append(fired, f)
	}
	return fired, nil
}

// RunNow enqueues one run of id at once, whatever its schedule (the `run`
// action); the schedule's next run is unchanged.
func (s *Store) RunNow(ctx context.Context, id string, enqueue Enqueue) (Fired, error) {
	lock, err := filelock.Acquire(ctx, s.lockPath())
	if err != nil {
		return Fired{}, fmt.Errorf("automations: lock: %w", err)
	}
	defer lock.Unlock()
	a, err := s.Get(id)
	if err != nil {
		return Fired{}, err
	}
	now := s.Now()
	run := Run{At: now, Due: now, Status: "enqueuing", Note: "run on request"}
	return s.record(ctx, a, run, enqueue)
}

// fire advances a's schedule durably before enqueuing, so a crash between
// the two loses a run rather than doubling it.
func (s *Store) fire(ctx context.Context, a *Automation, due, now time.Time, enqueue Enqueue) (Fired, error) {
	sched, err := a.schedule()
	if err != nil {
		// A schedule that no longer parses (a time zone gone from this
		// machine) pauses the automation instead of firing it forever.
		a.Status, a.NextRun = Paused, nil
		a.History = append(a.History, Run{At: now, Due: due, Status: "failed", Note: "paused: " + err.Error()})
		return Fired{ID: a.ID, Name: a.Name, Run: a.History[len(a.History)-1]}, s.save(a)
	}
	missed := 0
	for t := due; missed < maxMissed; missed++ {
		next, ok := sched.Next(t)
		if !ok || next.After(now) {
			break
		}
		t = next
	}
	if err := a.plan(now); err != nil {
		return Fired{}, err
	}
	if a.NextRun == nil {
		a.Status = Done
	}
	last := now
	a.LastRun = &last
	run := Run{At: now, Due: due, Status: "enqueuing", Missed: missed}
	if missed > 0 {
		run.Note = fmt.Sprintf("caught up: %d earlier run(s) were missed while codewhale was not running", missed)
	}
	return s.record(ctx, a, run, enqueue)
}

func (s *Store) record(ctx context.Context, a *Automation, run Run, enqueue Enqueue) (Fired, error) {
	a.History = append(a.History, run)
	if err := s.save(a); err != nil {
		return Fired{}, err
	}
	id, err := enqueue(ctx, *a, run.Due)
	last := &a.History[len(a.History)-1]
	if err != nil {
		last.Status, last.Note = "failed", "enqueue failed: "+err.Error()
	} else {
		last.Status, last.TaskID = "enqueued", id
	}
	if serr := s.save(a); serr != nil {
		return Fired{ID: a.ID, Name: a.Name, Run: *last}, serr
	}
	return Fired{ID: a.ID, Name: a.Name, Run: *last}, nil
}

// Due returns the active automations whose next run has come, without
// firing them: what RunDue would start now.
func (s *Store) Due() []Automation {
	list, _, err := s.List()
	if err != nil {
		return nil
	}
	now := s.Now()
	var due []Automation
	for _, a := range list {
		if a.Status == Active && a.NextRun != nil && !a.NextRun.After(now) {
			due = append(due, a)
		}
	}
	return due
}

// NextDue is the earliest next run of an active automation.
func (s *Store) NextDue() (time.Time, bool) {
	list, _, err := s.List()
	if err != nil {
		return time.Time{}, false
	}
	var best time.Time
	for _, a := range list {
		if a.Status == Active && a.NextRun != nil && (best.IsZero() || a.NextRun.Before(best)) {
			best = *a.NextRun
		}
	}
	return best, !best.IsZero()
}
