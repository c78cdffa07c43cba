package jobs

import (
	"context"
	"sync"
	"testing"
	"time"
)

// newTestManager returns a manager with a short kill grace that is closed
// when the test ends.
func newTestManager(t *testing.T, opts Options) *Manager {
	t.Helper()
	if opts.KillGrace == 0 {
		opts.KillGrace = 200 * time.Millisecond
	}
	if opts.Shell == "" {
		opts.Shell = "/bin/sh"
	}
	m, err := NewManager(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// run starts spec and waits for it to finish.
func run(t *testing.T, m *Manager, spec Spec) (*Job, Delta) {
	t.Helper()
	spec.Dir = t.TempDir()
	j, err := m.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	m.Await(context.Background(), j)
	d, err := m.Wait(context.Background(), j.ID(), 0, ModelReader)
	if err != nil {
		t.Fatal(err)
	}
	return j, d
}

// fakeClock is a settable clock for silence and eviction tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
