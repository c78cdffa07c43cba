package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// RetryPolicy controls retries of a request that failed to open
// (engine.md §2.12 layer 1).
type RetryPolicy struct {
	Enabled         bool
	MaxRetries      int
	InitialDelay    time.Duration
	MaxDelay        time.Duration
	ExponentialBase float64
}

// DefaultRetry is 4 attempts, 1 s × 2^n, capped at 60 s.
var DefaultRetry = RetryPolicy{Enabled: true, MaxRetries: 3, InitialDelay: time.Second, MaxDelay: 60 * time.Second, ExponentialBase: 2}

// Delay returns the wait before retry number attempt (0-based), with ±10 %
// jitter.
func (p RetryPolicy) Delay(attempt int) time.Duration {
	base := p.ExponentialBase
	if base <= 0 {
		base = 2
	}
	d := float64(p.InitialDelay) * math.Pow(base, float64(attempt))
	if p.MaxDelay > 0 && d > float64(p.MaxDelay) {
		d = float64(p.MaxDelay)
	}
	d *= 0.9 + 0.2*rand.Float64()
	return time.Duration(d)
}

// Config describes one resolved route.
type Config struct {
	Provider    string // display name, e.g. "Deepseek"
	BaseURL     string
	APIKey      string
	Model       string
	PathSuffix  string
	Retry       RetryPolicy
	OpenTimeout time.Duration // connect + headers; default 45 s
	IdleTimeout time.Duration // per chunk; default 900 s
	Headers     map[string]string
	UserAgent   string
	HTTPClient  *http.Client
	// OnRetry, when set, is told about each retry before the client waits.
	OnRetry func(attempt int, wait time.Duration, err error)
}

// Client talks to one OpenAI-compatible Chat Completions endpoint.
type Client struct {
	cfg  Config
	http *http.Client
}

// New checks cfg and returns a client. A hosted route without a key fails
// with MissingKeyError; loopback routes need none.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if err := CheckBaseURL(cfg.BaseURL); err != nil {
		return nil, err
	}
	if cfg.APIKey == "" && !IsLoopback(cfg.BaseURL) {
		return nil, MissingKeyError{}
	}
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	if cfg.Provider == "" {
		cfg.Provider = "Deepseek"
	}
	if cfg.OpenTimeout <= 0 {
		cfg.OpenTimeout = 45 * time.Second
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 900 * time.Second
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "codewhale"
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport}
	}
	return &Client{cfg: cfg, http: hc}, nil
}

// Model returns the route's model id.
func (c *Client) Model() string { return c.cfg.Model }

// ProviderName returns the route's provider display name.
func (c *Client) ProviderName() string { return c.cfg.Provider }

// BaseURL returns the route's base URL.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

// ParseHeaderList parses DEEPSEEK_HTTP_HEADERS-style "name=value,name=value".
func ParseHeaderList(s string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		if ok && strings.TrimSpace(k) != "" {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out
}

func anyStrict(tools []Tool) bool {
	for _, t := range tools {
		if t.Strict != nil && *t.Strict {
			return true
		}
	}
	return false
}

// open sends body and returns a 2xx response, retrying per the policy. The
// returned cancel must be called once the body is consumed.
func (c *Client) open(ctx context.Context, url string, body []byte, stream bool) (*http.Response, context.CancelFunc, error) {
	pol := c.cfg.Retry
	for attempt := 0; ; attempt++ {
		resp, cancel, err := c.once(ctx, url, body, stream)
		if err == nil {
			return resp, cancel, nil
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		wait, retry := retryable(err, pol, attempt)
		if !retry {
			return nil, nil, err
		}
		if c.cfg.OnRetry != nil {
			c.cfg.OnRetry(attempt+1, wait, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, nil, ctx.Err()
		case <-t.C:
		}
	}
}

func retryable(err error, pol RetryPolicy, attempt int) (time.Duration, bool) {
	if !pol.Enabled || attempt >= pol.MaxRetries {
		return 0, false
	}
	var he *HTTPError
	if errors.As(err, &he) {
		if !he.Retryable() {
			return 0, false
		}
		if he.RetryAfter > 0 {
			return he.RetryAfter, true
		}
		return pol.Delay(attempt), true
	}
	var ne *NetworkError
	if errors.As(err, &ne) {
		return pol.Delay(attempt), true
	}
	return 0, false
}

// once performs one HTTP attempt. The open timeout covers connect and
// headers only; the returned context stays live for the body.
func (c *Client) once(ctx context.Context, url string, body []byte, stream bool) (*http.Response, context.CancelFunc, error) {
	rctx, cancel := context.WithCancel(ctx)
	var timedOut atomic.Bool
	timer := time.AfterFunc(c.cfg.OpenTimeout, func() { timedOut.Store(true); cancel() })
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		timer.Stop()
		cancel()
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	if stream {
		req.Header.Set("Accept", "text/event-stream")
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	for k, v := range c.cfg.Headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	stopped := timer.Stop()
	if err != nil {
		cancel()
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if timedOut.Load() || !stopped {
			return nil, nil, &NetworkError{Err: fmt.Errorf("no response headers within %s", c.cfg.OpenTimeout), Timeout: true}
		}
		return nil, nil, &NetworkError{Err: err}
	}
	if resp.StatusCode/100 != 2 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		cancel()
		he := &HTTPError{Status: resp.StatusCode, Message: sanitizeBody(raw, c.cfg.APIKey), Stream: stream}
		if s := resp.Header.Get("Retry-After"); s != "" {
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
				he.RetryAfter = min(time.Duration(n)*time.Second, time.Hour)
			}
		}
		return nil, nil, he
	}
	return resp, cancel, nil
}

// Stream opens a streaming request. Events come from Recv; Close releases
// the connection. A stream that breaks before delivering any content is
// re-sent transparently, at most twice (engine.md §2.12 layer 2).
func (c *Client) Stream(ctx context.Context, req *Request) (*Stream, error) {
	r := *req
	r.Stream = true
	body, err := encodeBody(&r, c.cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	url := ChatURL(c.cfg.BaseURL, anyStrict(req.Tools), c.cfg.PathSuffix)
	s := &Stream{c: c, ctx: ctx, url: url, body: body, retries: 2, ad: newChatAdapter()}
	if err := s.connect(); err != nil {
		return nil, err
	}
	s.ad.push(StreamEvent{Kind: EvMessageStart})
	return s, nil
}

// Complete performs one non-streaming request (engine.md §3.7).
func (c *Client) Complete(ctx context.Context, req *Request) (*Response, error) {
	r := *req
	r.Stream = false
	body, err := encodeBody(&r, c.cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	url := ChatURL(c.cfg.BaseURL, anyStrict(req.Tools), c.cfg.PathSuffix)
	resp, cancel, err := c.open(ctx, url, body, false)
	if err != nil {
		return nil, err
	}
	defer cancel()
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, &NetworkError{Err: err}
	}
	return decodeResponse(raw)
}

// EnvDuration reads an integer-seconds environment variable, clamped.
func EnvDuration(names []string, lo, hi int) (time.Duration, bool) {
	for _, n := range names {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			if secs, err := strconv.Atoi(v); err == nil {
				return time.Duration(max(lo, min(hi, secs))) * time.Second, true
			}
		}
	}
	return 0, false
}
