// Package fakeclock is a settable clock for tests of code that reads the
// time through an injected Now (jobs' silence and eviction, the TUI's key
// guard and toasts): the test moves time on instead of waiting for it.
package fakeclock

import (
	"sync"
	"time"
)

// Clock is safe for concurrent use; its zero value stands at the zero time.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// At is a clock standing at t.
func At(t time.Time) *Clock { return &Clock{now: t} }

// Now is the clock's time; pass the method value as the Now to inject.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
