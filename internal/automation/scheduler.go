package automation

import (
	"context"
	"time"
)

// Scheduler runs due automations inside a long-lived process (the TUI). It
// sleeps until the earliest next run — no polling — and is woken early by
// Wake when this process changes the store.
type Scheduler struct {
	store   *Store
	enqueue Enqueue
	wake    chan struct{}
	// OnFire, when set, is told of every run started (for a notice).
	OnFire func([]Fired, error)
}

// NewScheduler returns a scheduler over store.
func NewScheduler(store *Store, enqueue Enqueue) *Scheduler {
	return &Scheduler{store: store, enqueue: enqueue, wake: make(chan struct{}, 1)}
}

// Wake makes the scheduler re-read the store now.
func (s *Scheduler) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run fires due automations until ctx ends.
func (s *Scheduler) Run(ctx context.Context) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		fired, err := s.store.RunDue(ctx, s.enqueue)
		if (len(fired) > 0 || err != nil) && s.OnFire != nil && ctx.Err() == nil {
			s.OnFire(fired, err)
		}
		var fire <-chan time.Time
		if next, ok := s.store.NextDue(); ok {
			d := time.Until(next)
			if err != nil {
				d = max(d, time.Second) // a failing store is retried, not spun on
			}
			if d < 0 {
				d = 0
			}
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			fire = timer.C
		}
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
			if timer != nil && !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
		case <-fire:
		}
	}
}
