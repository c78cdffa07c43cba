package agent

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// Admission paces the launches of a session's children when the provider
// pushes back (CONTRACT.md §6.5): a token bucket that every child turn takes
// one token from before it sends its first request. It holds at most Burst
// tokens (the rate, capped at the concurrency limit) and refills at Rate per
// second. A 429 a child sees halves the rate — at most once per HalveEvery,
// so one burst of refusals counts once — down to Floor, and drops the
// tokens above the new burst; every RecoverEvery without a 429 doubles it
// back up to Ceiling. Retries of a request that was refused stay the
// provider client's (bounded by [retry]); the bucket only spaces new turns,
// so a rate limit never turns into a storm of fresh requests.
type Admission struct {
	opts AdmissionOptions

	mu          sync.Mutex
	rate        float64 // launches per second
	tokens      float64
	counted     time.Time // tokens were last refilled at
	halvedAt    time.Time // the rate was last halved at
	changedAt   time.Time // the rate was last halved or doubled at
	limitedAt   time.Time // the last 429 was reported at
	limited     int       // 429s reported
	waiting     int       // children waiting for a token
	observers   []func(AdmissionState)
	wake        chan struct{} // closed and replaced when the rate changes
	initialised bool
}

// AdmissionOptions configure an Admission; zero values take the defaults.
type AdmissionOptions struct {
	Ceiling      float64 // launches per second when nothing pushes back (default 64)
	Floor        float64 // the slowest pace (default 0.5 per second)
	Burst        int     // most tokens held (default the ceiling)
	HalveEvery   time.Duration
	RecoverEvery time.Duration
	Clock        func() time.Time
	// After is time.After (tests move a fake clock instead of waiting).
	After func(time.Duration) <-chan time.Time
}

// Admission defaults.
const (
	DefaultLaunchCeiling = 64.0
	DefaultLaunchFloor   = 0.5
	defaultHalveEvery    = time.Second
	defaultRecoverEvery  = 5 * time.Second
)

// NewAdmission returns a bucket that starts full.
func NewAdmission(o AdmissionOptions) *Admission {
	if o.Ceiling <= 0 {
		o.Ceiling = DefaultLaunchCeiling
	}
	if o.Floor <= 0 || o.Floor > o.Ceiling {
		o.Floor = min(DefaultLaunchFloor, o.Ceiling)
	}
	if o.Burst <= 0 {
		o.Burst = int(math.Ceil(o.Ceiling))
	}
	if o.HalveEvery <= 0 {
		o.HalveEvery = defaultHalveEvery
	}
	if o.RecoverEvery <= 0 {
		o.RecoverEvery = defaultRecoverEvery
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
	return &Admission{opts: o, rate: o.Ceiling, tokens: float64(o.Burst), wake: make(chan struct{})}
}

// AdmissionState is the bucket as /jobs and stream-json show it.
type AdmissionState struct {
	Rate        float64 `json:"launches_per_sec"`
	Ceiling     float64 `json:"max_launches_per_sec"`
	Throttled   bool    `json:"throttled"`
	RateLimited int     `json:"rate_limited"` // 429s children reported
	Waiting     int     `json:"waiting"`      // children waiting for a launch
	// Event is what changed: "halved" after a 429, "recovered" as the
	// pace doubles back ("" in a snapshot).
	Event string `json:"event,omitempty"`
}

// Line is the state in one sentence.
func (s AdmissionState) Line() string {
	if !s.Throttled {
		return fmt.Sprintf("Sub-agent launches: unthrottled (up to %s/s); %d rate limit(s) (429) seen.", rateText(s.Ceiling), s.RateLimited)
	}
	return fmt.Sprintf("Sub-agent launches: paced at %s/s after %d rate limit(s) (429); %d waiting; recovering toward %s/s.",
		rateText(s.Rate), s.RateLimited, s.Waiting, rateText(s.Ceiling))
}

func rateText(r float64) string {
	if r == math.Trunc(r) {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.2g", r)
}

// Observe calls f (from the goroutine that changed it) whenever the rate is
// halved or recovers.
func (a *Admission) Observe(f func(AdmissionState)) {
	a.mu.Lock()
	a.observers = append(a.observers, f)
	a.mu.Unlock()
}

// State is the bucket now.
func (a *Admission) State() AdmissionState {
	a.mu.Lock()
	s, obs := a.settleLocked(a.opts.Clock())
	a.mu.Unlock()
	notify(obs, s)
	st := s.state
	st.Event = ""
	return st
}

// Take waits for a launch token; it fails only when ctx ends first.
func (a *Admission) Take(ctx context.Context) error {
	a.mu.Lock()
	for {
		now := a.opts.Clock()
		s, obs := a.settleLocked(now)
		if a.tokens >= 1 {
			a.tokens--
			a.mu.Unlock()
			notify(obs, s)
			return nil
		}
		wait := time.Duration((1 - a.tokens) / a.rate * float64(time.Second))
		wake := a.wake
		a.waiting++
		a.mu.Unlock()
		notify(obs, s)
		var err error
		select {
		case <-a.opts.After(wait):
		case <-wake:
		case <-ctx.Done():
			err = ctx.Err()
		}
		a.mu.Lock()
		a.waiting--
		if err != nil {
			a.mu.Unlock()
			return err
		}
	}
}

// RateLimited records a 429 a child's request met.
func (a *Admission) RateLimited() {
	a.mu.Lock()
	now := a.opts.Clock()
	a.settleLocked(now)
	a.limited++
	a.limitedAt = now
	var s settled
	var obs []func(AdmissionState)
	if a.rate > a.opts.Floor && (a.halvedAt.IsZero() || now.Sub(a.halvedAt) >= a.opts.HalveEvery) {
		a.rate = max(a.rate/2, a.opts.Floor)
		a.tokens = min(a.tokens, a.burstLocked())
		a.halvedAt, a.changedAt = now, now
		s, obs = a.changeLocked("halved")
	}
	a.mu.Unlock()
	notify(obs, s)
}

// settled is a state and whether observers must hear of it.
type settled struct {
	state  AdmissionState
	notify bool
}

// settleLocked refills the tokens and doubles the rate back for every
// RecoverEvery since the last change without a 429; callers hold a.mu and
// notify the returned observers once it is released.
func (a *Admission) settleLocked(now time.Time) (settled, []func(AdmissionState)) {
	if !a.initialised {
		a.counted, a.initialised = now, true
	}
	a.tokens = min(a.tokens+now.Sub(a.counted).Seconds()*a.rate, a.burstLocked())
	a.counted = now
	recovered := false
	for a.rate < a.opts.Ceiling && now.Sub(a.changedAt) >= a.opts.RecoverEvery && now.Sub(a.limitedAt) >= a.opts.RecoverEvery {
		a.rate = min(a.rate*2, a.opts.Ceiling)
		a.changedAt = a.changedAt.Add(a.opts.RecoverEvery)
		recovered = true
	}
	if recovered {
		return a.changeLocked("recovered")
	}
	return settled{state: a.stateLocked("")}, nil
}

func (a *Admission) changeLocked(event string) (settled, []func(AdmissionState)) {
	close(a.wake)
	a.wake = make(chan struct{})
	return settled{state: a.stateLocked(event), notify: true}, slices.Clone(a.observers)
}

func (a *Admission) burstLocked() float64 {
	return max(1, min(float64(a.opts.Burst), math.Floor(a.rate)))
}

func (a *Admission) stateLocked(event string) AdmissionState {
	return AdmissionState{Rate: a.rate, Ceiling: a.opts.Ceiling, Throttled: a.rate < a.opts.Ceiling,
		RateLimited: a.limited, Waiting: a.waiting, Event: event}
}

func notify(obs []func(AdmissionState), s settled) {
	if !s.notify {
		return
	}
	for _, f := range obs {
		f(s.state)
	}
}
