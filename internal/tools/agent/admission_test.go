package agent_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakeclock"
	"github.com/codewhale/codewhale/internal/tools/agent"
)

// waits is a fake time.After: each wait moves the fake clock on by exactly
// what was asked and is recorded, so the test reads the pacing.
type waits struct {
	mu    sync.Mutex
	clock *fakeclock.Clock
	asked []time.Duration
}

func (w *waits) after(d time.Duration) <-chan time.Time {
	w.mu.Lock()
	w.asked = append(w.asked, d)
	w.mu.Unlock()
	w.clock.Advance(d)
	ch := make(chan time.Time, 1)
	ch <- w.clock.Now()
	return ch
}

func (w *waits) total() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	var sum time.Duration
	for _, d := range w.asked {
		sum += d
	}
	return sum
}

// Launches go at once while nothing pushes back; a 429 halves the pace (a
// burst of them counts once per second), launches then wait their turn,
// and a quiet spell doubles the pace back to the ceiling. Every change
// reaches the observers.
// README.md "Sub-agents": the launch pace halves on a 429 and doubles back after 5 s without one.
func TestAdmissionHalvesOn429AndRecovers(t *testing.T) {
	t.Parallel()
	clock := fakeclock.At(time.Unix(1_700_000_000, 0))
	w := &waits{clock: clock}
	a := agent.NewAdmission(agent.AdmissionOptions{Ceiling: 8, Floor: 1, Clock: clock.Now, After: w.after})
	var events []agent.AdmissionState
	a.Observe(func(s agent.AdmissionState) { events = append(events, s) })
	ctx := context.Background()
	for range 8 {
		if err := a.Take(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if w.total() != 0 {
		t.Fatalf("a full bucket made launches wait %v", w.total())
	}
	a.RateLimited()
	a.RateLimited() // the same burst of refusals: counted, not halved again
	if s := a.State(); s.Rate != 4 || !s.Throttled || s.RateLimited != 2 {
		t.Fatalf("after a burst of 429s: %+v", s)
	}
	for range 4 {
		if err := a.Take(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.total(); got < 990*time.Millisecond || got > 1010*time.Millisecond {
		t.Errorf("4 launches at 4/s from an empty bucket waited %v, want 1 s", got)
	}
	clock.Advance(time.Second)
	a.RateLimited() // a second later: halved again
	if s := a.State(); s.Rate != 2 {
		t.Fatalf("a later 429: %+v", s)
	}
	clock.Advance(5 * time.Second)
	if s := a.State(); s.Rate != 4 || s.Event != "" {
		t.Fatalf("after a quiet 5 s: %+v", s)
	}
	clock.Advance(10 * time.Second)
	if s := a.State(); s.Rate != 8 || s.Throttled {
		t.Fatalf("after a quiet 15 s: %+v", s)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.Event)
	}
	if len(kinds) != 4 || kinds[0] != "halved" || kinds[1] != "halved" || kinds[2] != "recovered" || kinds[3] != "recovered" {
		t.Errorf("events %q", kinds)
	}
	for range 10 {
		a.RateLimited()
		clock.Advance(time.Second)
	}
	if s := a.State(); s.Rate != 1 {
		t.Errorf("the pace fell below its floor: %+v", s)
	}
}

// A child waiting for a launch leaves as soon as it is cancelled.
func TestAdmissionWaitEndsWithItsContext(t *testing.T) {
	t.Parallel()
	a := agent.NewAdmission(agent.AdmissionOptions{Ceiling: 1, Floor: 0.001,
		After: func(time.Duration) <-chan time.Time { return nil }})
	if err := a.Take(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- a.Take(ctx) }()
	cancel()
	if err := <-done; err == nil {
		t.Error("a cancelled wait took a token")
	}
}
