package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/provider"
)

// Ranges of the retry and deadline settings. A value outside them is a
// configuration error that names the key, never silently clamped: a
// `max_retries = 1000000, initial_delay = 0` once made 911 requests in 40 s.
var (
	rangeMaxRetries    = [2]float64{0, 10}
	rangeInitialDelay  = [2]float64{0.01, 60}
	rangeMaxDelay      = [2]float64{0.01, 600}
	rangeExpBase       = [2]float64{1, 10}
	rangeMaxRetryAfter = [2]float64{0, 3600}
	rangeOpenTimeout   = [2]float64{0.1, 300}
	rangeIdleTimeout   = [2]float64{0.1, 3600}
	rangeRequestTime   = [2]float64{0.1, 86400}
)

func checkRange(path, key string, v float64, r [2]float64) error {
	if math.IsNaN(v) || v < r[0] || v > r[1] {
		f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
		return fmt.Errorf("config: %s: %s = %s is out of range (allowed %s..%s)", path, key, f(v), f(r[0]), f(r[1]))
	}
	return nil
}

func seconds(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }

// retryPolicy is the [retry] table over the defaults, validated.
func retryPolicy(path string, r *Retry) (provider.RetryPolicy, error) {
	p := provider.DefaultRetry
	if r == nil {
		return p, nil
	}
	if r.Enabled != nil {
		p.Enabled = *r.Enabled
	}
	if r.MaxRetries != nil {
		if err := checkRange(path, "[retry] max_retries", float64(*r.MaxRetries), rangeMaxRetries); err != nil {
			return p, err
		}
		p.MaxRetries = *r.MaxRetries
	}
	for _, f := range []struct {
		key string
		v   *float64
		r   [2]float64
		dst *time.Duration
	}{
		{"[retry] initial_delay", r.InitialDelay, rangeInitialDelay, &p.InitialDelay},
		{"[retry] max_delay", r.MaxDelay, rangeMaxDelay, &p.MaxDelay},
		{"[retry] max_retry_after", r.MaxRetryAfter, rangeMaxRetryAfter, &p.MaxRetryAfter},
	} {
		if f.v == nil {
			continue
		}
		if err := checkRange(path, f.key, *f.v, f.r); err != nil {
			return p, err
		}
		*f.dst = seconds(*f.v)
	}
	if r.ExponentialBase != nil {
		if err := checkRange(path, "[retry] exponential_base", *r.ExponentialBase, rangeExpBase); err != nil {
			return p, err
		}
		p.ExponentialBase = *r.ExponentialBase
	}
	if p.MaxDelay < p.InitialDelay {
		return p, fmt.Errorf("config: %s: [retry] max_delay (%s) is below initial_delay (%s)", path, p.MaxDelay, p.InitialDelay)
	}
	return p, nil
}

// deadline resolves one provider deadline: the environment (first set name
// wins), else the config key, else def. Both must be within r.
func deadline(path, key string, file float64, env Env, names []string, r [2]float64, def time.Duration) (time.Duration, error) {
	for _, n := range names {
		s := strings.TrimSpace(env(n))
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("environment: %s = %q is not a number of seconds", n, s)
		}
		if err := checkRange("environment", n, v, r); err != nil {
			return 0, err
		}
		return seconds(v), nil
	}
	if file == 0 {
		return def, nil
	}
	if err := checkRange(path, key, file, r); err != nil {
		return 0, err
	}
	return seconds(file), nil
}

// resolveDeadlines sets the retry policy and the provider deadlines
// (CONTRACT.md §9.3, §9.12).
func (c *Config) resolveDeadlines(env Env) error {
	f := &c.File
	var err error
	if c.Retry, err = retryPolicy(c.Path, f.Retry); err != nil {
		return err
	}
	if c.OpenTimeout, err = deadline(c.Path, "stream_open_timeout_secs", f.StreamOpenTimeoutSecs, env,
		[]string{"CODEWHALE_STREAM_OPEN_TIMEOUT_SECS", "DEEPSEEK_STREAM_OPEN_TIMEOUT_SECS"}, rangeOpenTimeout, provider.DefaultOpenTimeout); err != nil {
		return err
	}
	if c.IdleTimeout, err = deadline(c.Path, "stream_chunk_timeout_secs", f.StreamChunkTimeoutSecs, env,
		[]string{"CODEWHALE_STREAM_IDLE_TIMEOUT_SECS", "DEEPSEEK_STREAM_IDLE_TIMEOUT_SECS"}, rangeIdleTimeout, provider.DefaultIdleTimeout); err != nil {
		return err
	}
	c.RequestTimeout, err = deadline(c.Path, "request_timeout_secs", f.RequestTimeoutSecs, env,
		[]string{"CODEWHALE_REQUEST_TIMEOUT_SECS"}, rangeRequestTime, provider.DefaultRequestTimeout)
	return err
}
