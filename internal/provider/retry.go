package provider

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// RetryPolicy controls how one request is re-sent after a failure that may
// pass (CONTRACT.md §9.12, §15.24). Every wait is backed off with
// jitter; no retry is ever immediate.
type RetryPolicy struct {
	Enabled         bool
	MaxRetries      int
	InitialDelay    time.Duration
	MaxDelay        time.Duration
	ExponentialBase float64
	// MaxRetryAfter is the longest Retry-After the client waits for. A
	// provider that asks for longer ends the retries with an error that
	// names the cap, rather than being asked again too early.
	MaxRetryAfter time.Duration
}

// DefaultRetry is 4 attempts, 1 s × 2^n capped at 60 s, Retry-After honoured
// up to 60 s.
var DefaultRetry = RetryPolicy{Enabled: true, MaxRetries: 3, InitialDelay: time.Second, MaxDelay: 60 * time.Second,
	ExponentialBase: 2, MaxRetryAfter: 60 * time.Second}

// MaxStallRetries bounds the retries caused by silence (no first byte, or a
// stream gone quiet), whatever MaxRetries says: a stalled provider is
// rarely cured by asking again, and each stall costs a whole deadline.
const MaxStallRetries = 2

// minDelay is the floor of every backoff wait.
const minDelay = 10 * time.Millisecond

// Delay returns the wait before retry number attempt (0-based), with ±10 %
// jitter and a floor of 10 ms.
func (p RetryPolicy) Delay(attempt int) time.Duration {
	base := p.ExponentialBase
	if base < 1 {
		base = 2
	}
	d := float64(p.InitialDelay) * math.Pow(base, float64(attempt))
	if p.MaxDelay > 0 && d > float64(p.MaxDelay) {
		d = float64(p.MaxDelay)
	}
	d = max(d, float64(minDelay))
	d *= 0.9 + 0.2*rand.Float64()
	return time.Duration(d)
}

// RetryInfo describes a retry about to happen. Hosts show it: the TUI status
// line, a stderr line in exec, a stream-json "retry" object.
type RetryInfo struct {
	Attempt int    // the attempt about to be made; 2 is the first retry
	Max     int    // the most attempts this request may make
	Reason  string // "Rate limited (429)", "No response within 45s", …
	Status  int    // the HTTP status that caused it, 0 for other failures
	Wait    time.Duration
	// Retract is set when the failed attempt had already streamed content:
	// everything it delivered is void and the answer starts again.
	Retract bool
	Err     error
}

// GaveUpError is a retryable failure that was not retried again; Why says
// which bound stopped it.
type GaveUpError struct {
	Attempts int
	Why      string
	Err      error
}

func (e *GaveUpError) Error() string {
	return fmt.Sprintf("%s (gave up after %d attempt(s): %s)", e.Err, e.Attempts, e.Why)
}

func (e *GaveUpError) Unwrap() error { return e.Err }

// LimitError is a response that overflowed a fixed cap. The same request
// would overflow again, so it is never retried.
type LimitError struct {
	What  string // "SSE line", "response content (text + reasoning)"
	Limit int    // bytes
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("the provider's response exceeded the %s cap of %d MiB; stopped without retrying, since the same request would overflow again",
		e.What, e.Limit>>20)
}

// retrier tracks the retries of one request across its attempts.
type retrier struct {
	pol      RetryPolicy
	total    time.Duration
	deadline time.Time // the whole request, every attempt and wait included
	open     time.Duration
	idle     time.Duration
	attempts int // made so far
	stalls   int
}

func (c *Client) newRetrier() *retrier {
	return &retrier{pol: c.cfg.Retry, total: c.cfg.RequestTimeout, deadline: time.Now().Add(c.cfg.RequestTimeout),
		open: c.cfg.OpenTimeout, idle: c.cfg.IdleTimeout}
}

// maxAttempts is the most attempts the policy allows.
func (r *retrier) maxAttempts() int {
	if !r.pol.Enabled {
		return 1
	}
	return r.pol.MaxRetries + 1
}

// next decides what follows failed attempt err: a retry (the info to
// announce and wait on) or the terminal error.
func (r *retrier) next(err error, now time.Time) (RetryInfo, error) {
	info := RetryInfo{Attempt: r.attempts + 1, Max: r.maxAttempts(), Err: err}
	reason, stall, retry := r.classify(err, &info)
	if !retry {
		return info, err
	}
	info.Reason = reason
	switch {
	case r.attempts >= info.Max:
		return info, r.gaveUp(err, fmt.Sprintf("the retry limit of %d is reached ([retry] max_retries)", r.pol.MaxRetries))
	case stall && r.stalls >= MaxStallRetries:
		return info, r.gaveUp(err, fmt.Sprintf("a stalled provider is retried at most %d times", MaxStallRetries))
	case info.Wait > 0 && info.Status != 0 && info.Wait > r.pol.MaxRetryAfter:
		return info, r.gaveUp(err, fmt.Sprintf("the provider asked to wait %s, longer than the %s cap ([retry] max_retry_after)",
			info.Wait.Round(time.Second), r.pol.MaxRetryAfter))
	}
	if info.Wait <= 0 {
		info.Wait = r.pol.Delay(r.attempts - 1)
	} else {
		info.Wait += time.Duration(rand.Float64() * 0.1 * float64(info.Wait)) // never earlier than asked
	}
	if now.Add(info.Wait).After(r.deadline) {
		return info, r.gaveUp(err, fmt.Sprintf("the next attempt would pass the %s request deadline", r.total))
	}
	if stall {
		r.stalls++
	}
	return info, nil
}

func (r *retrier) gaveUp(err error, why string) error {
	return &GaveUpError{Attempts: r.attempts, Why: why, Err: err}
}

// classify says whether err may pass on a retry, why, and whether it was a
// stall. A Retry-After the provider sent is put in info.Wait.
func (r *retrier) classify(err error, info *RetryInfo) (reason string, stall, retry bool) {
	var he *HTTPError
	var ne *NetworkError
	var se *StreamError
	var le *LimitError
	switch {
	case errors.Is(err, context.Canceled), errors.As(err, &le), errors.As(err, new(*deadlineError)):
		return "", false, false
	case errors.As(err, &he):
		if !he.Retryable() {
			return "", false, false
		}
		info.Status, info.Wait = he.Status, he.RetryAfter
		if he.Status == 429 {
			return "Rate limited (429)", false, true
		}
		return fmt.Sprintf("Server error (%d)", he.Status), false, true
	case errors.As(err, &ne):
		if ne.Timeout {
			return fmt.Sprintf("No response within %s", r.open), true, true
		}
		return "Connection failed", false, true
	case errors.As(err, &se):
		if se.Timeout {
			return fmt.Sprintf("Stream stalled (no data for %s)", r.idle), true, true
		}
		return "Stream dropped", false, true
	}
	return "", false, false
}

// deadlineError is the request running past its total deadline.
type deadlineError struct{ total time.Duration }

func (e *deadlineError) Error() string {
	return fmt.Sprintf("the request ran past its %s deadline (request_timeout_secs)", e.total)
}

// Timeout marks the error as a timeout for classification.
func (e *deadlineError) Timeout() bool { return true }

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
