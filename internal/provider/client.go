package provider

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/httptransport"
)

// Config describes one resolved route.
type Config struct {
	Provider   string // display name, e.g. "DeepSeek"
	ProviderID string // the preset or [providers.<id>] name, e.g. "deepseek"
	BaseURL    string
	APIKey     string
	// KeyOptional lets a route without a key reach a server that is not on
	// loopback (a local server's preset on another machine of the LAN).
	KeyOptional bool
	// KeyEnv is the variable a missing-key message asks for.
	KeyEnv     string
	Model      string
	PathSuffix string
	Retry      RetryPolicy
	// OpenTimeout is the first-byte deadline: connect, headers and the
	// first body byte (a keep-alive comment counts). Default 45 s.
	OpenTimeout time.Duration
	// IdleTimeout is the longest silence once the body has started; any
	// byte, keep-alive comments included, resets it. Default 120 s.
	IdleTimeout time.Duration
	// RequestTimeout bounds one request: every attempt, every wait and the
	// stream itself. Default 30 min.
	RequestTimeout time.Duration
	Headers        map[string]string
	UserAgent      string
	// AllowInsecureHTTP permits plain http to a non-loopback base URL
	// (config: CODEWHALE_ALLOW_INSECURE_HTTP).
	AllowInsecureHTTP bool
	// MaxOutputTokens, when positive, replaces the per-model output cap
	// (config: CODEWHALE_MAX_OUTPUT_TOKENS).
	MaxOutputTokens int
	HTTPClient      *http.Client
	// Models is the route's model table; nil is the built-in rows.
	Models *ModelTable
	// CertFile is SSL_CERT_FILE for the default HTTP client (config reads
	// it).
	CertFile string
	// Quirks remembers the request fields the route's server refused; nil
	// remembers them for this client only.
	Quirks *Quirks
	// OnRetry, when set, is told about each retry of Complete before the
	// client waits. Streams deliver retries as EvRetry events instead.
	OnRetry func(RetryInfo)
}

// Default deadlines (CONTRACT.md §9.3, §9.12).
const (
	DefaultOpenTimeout    = 45 * time.Second
	DefaultIdleTimeout    = 120 * time.Second
	DefaultRequestTimeout = 30 * time.Minute
)

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
	if err := CheckBaseURL(cfg.BaseURL, cfg.AllowInsecureHTTP); err != nil {
		return nil, err
	}
	if cfg.ProviderID == "" {
		cfg.ProviderID = "deepseek"
	}
	if cfg.Provider == "" {
		cfg.Provider = "DeepSeek"
	}
	if cfg.APIKey == "" && !cfg.KeyOptional && !IsLoopback(cfg.BaseURL) {
		return nil, MissingKeyError{Provider: cfg.ProviderID, Name: cfg.Provider, Env: cfg.KeyEnv}
	}
	if cfg.Model == "" && cfg.ProviderID == "deepseek" {
		cfg.Model = DefaultModel
	}
	if cfg.OpenTimeout <= 0 {
		cfg.OpenTimeout = DefaultOpenTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Retry == (RetryPolicy{}) {
		cfg.Retry = DefaultRetry
	}
	if cfg.Retry.MaxRetryAfter <= 0 {
		cfg.Retry.MaxRetryAfter = DefaultRetry.MaxRetryAfter
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "codewhale"
	}
	if cfg.Quirks == nil {
		cfg.Quirks = &Quirks{}
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = httptransport.Client(cfg.CertFile)
	}
	return &Client{cfg: cfg, http: hc}, nil
}

// Model returns the route's model id.
func (c *Client) Model() string { return c.cfg.Model }

// ProviderName returns the route's provider display name.
func (c *Client) ProviderName() string { return c.cfg.Provider }

// MaxOutputTokens is the output cap of a request to model m on this client:
// the configured override, else the model's cap.
func (c *Client) MaxOutputTokens(m ModelInfo) int {
	if c.cfg.MaxOutputTokens > 0 {
		return c.cfg.MaxOutputTokens
	}
	return MaxOutputTokens(m)
}

// ResolveModel is the model table's answer for the route's model, with
// the reasoning tier a legacy id implies.
func (c *Client) ResolveModel() (ModelInfo, string) {
	return c.cfg.Models.Resolve(c.cfg.Model, IsFirstParty(c.cfg.BaseURL))
}

// ProviderID returns the route's provider id ("deepseek").
func (c *Client) ProviderID() string { return c.cfg.ProviderID }

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

// WithOnRetry returns a copy of the client that tells f about each retry of
// Complete.
func (c *Client) WithOnRetry(f func(RetryInfo)) *Client {
	cp := *c
	cp.cfg.OnRetry = f
	return &cp
}

// attempt is one HTTP exchange whose response is open.
type attempt struct {
	body   io.ReadCloser // watched: reads feed the watchdog
	cancel context.CancelFunc
	wd     *watchdog
	dctx   context.Context // carries the request's total deadline
}

func (a *attempt) close() {
	a.body.Close()
	a.cancel()
}

// once performs one HTTP attempt and returns its 2xx response. The
// watchdog's first-byte deadline runs from here until the first body byte;
// the attempt context also carries the request's total deadline.
func (c *Client) once(ctx context.Context, deadline time.Time, url string, body []byte, stream bool) (*attempt, error) {
	dctx, dcancel := context.WithDeadline(ctx, deadline)
	rctx, rcancel := context.WithCancel(dctx)
	cancel := func() { rcancel(); dcancel() }
	wd := startWatchdog(c.cfg.OpenTimeout, c.cfg.IdleTimeout, rcancel)
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		wd.stop()
		cancel()
		return nil, err
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
	if err != nil {
		wd.stop()
		err = c.transportError(ctx, dctx, wd, err)
		cancel()
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		wd.stop()
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		cancel()
		he := &HTTPError{Status: resp.StatusCode, Message: sanitizeBody(raw, c.cfg.APIKey), Stream: stream,
			Provider: c.cfg.ProviderID, Name: c.cfg.Provider, KeyEnv: c.cfg.KeyEnv, NoKey: c.cfg.APIKey == "",
			Param: errorParam(raw)}
		he.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		return nil, he
	}
	return &attempt{body: wd.body(resp.Body), cancel: cancel, wd: wd, dctx: dctx}, nil
}

// transportError names why an attempt failed before a response: the
// caller's cancel, the total deadline, the first-byte deadline, or the
// network.
func (c *Client) transportError(ctx, dctx context.Context, wd *watchdog, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case dctx.Err() == context.DeadlineExceeded:
		return &NetworkError{Err: &deadlineError{total: c.cfg.RequestTimeout}, Timeout: true}
	case wd.fired.Load():
		return &NetworkError{Err: fmt.Errorf("no response within %s (first-byte deadline, stream_open_timeout_secs)", c.cfg.OpenTimeout), Timeout: true}
	}
	return &NetworkError{Err: err}
}

// bodyError names why reading an open response failed: the caller's
// cancel, the total deadline, a deadline of the watchdog, or the network.
func (c *Client) bodyError(ctx context.Context, at *attempt, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case at.dctx.Err() == context.DeadlineExceeded:
		return &NetworkError{Err: &deadlineError{total: c.cfg.RequestTimeout}, Timeout: true}
	case at.wd.firedEarly.Load():
		return &NetworkError{Err: fmt.Errorf("no response within %s (first-byte deadline, stream_open_timeout_secs)", c.cfg.OpenTimeout), Timeout: true}
	case at.wd.fired.Load():
		return &StreamError{Timeout: true, Err: fmt.Errorf("no data from the provider for %s (idle deadline, stream_chunk_timeout_secs)", c.cfg.IdleTimeout)}
	}
	return &StreamError{Err: err}
}

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP date.
func parseRetryAfter(s string, now time.Time) time.Duration {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0
	}
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(max(0, min(n, 86400))) * time.Second
	}
	if t, err := http.ParseTime(s); err == nil && t.After(now) {
		return min(t.Sub(now), 24*time.Hour)
	}
	return 0
}

// wireRequest is req as this route sends it: streaming or not, and with a
// legacy model id mapped onto its current model on the first-party route,
// with the effort the id implied when req names none (CONTRACT.md §10.1),
// whichever caller built it.
func (c *Client) wireRequest(req *Request, stream bool) Request {
	r := *req
	r.Stream = stream
	if id, effort := legacyID(r.Model, IsFirstParty(c.cfg.BaseURL)); id != r.Model {
		r.Model = id
		if r.ReasoningEffort == "" {
			r.ReasoningEffort = effort
		}
	}
	return r
}

// Stream prepares a streaming request; it is sent on the first Recv. Events,
// retries (EvRetry) and failures all come from Recv; Close releases the
// connection.
func (c *Client) Stream(ctx context.Context, req *Request) (*Stream, error) {
	r := c.wireRequest(req, true)
	body, err := encodeBody(&r, c.cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	url := ChatURL(c.cfg.BaseURL, anyStrict(req.Tools), c.cfg.PathSuffix)
	body = c.cfg.Quirks.stripDropped(body)
	s := &Stream{c: c, ctx: ctx, url: url, body: body, try: c.newRetrier(), ad: newChatAdapter()}
	s.ad.push(StreamEvent{Kind: EvMessageStart})
	return s, nil
}

// maxResponseBody bounds a non-streaming response body.
const maxResponseBody = 32 << 20

// Complete performs one non-streaming request (CONTRACT.md §10.7), retrying
// as a stream does; OnRetry hears each retry.
func (c *Client) Complete(ctx context.Context, req *Request) (*Response, error) {
	r := c.wireRequest(req, false)
	body, err := encodeBody(&r, c.cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	url := ChatURL(c.cfg.BaseURL, anyStrict(req.Tools), c.cfg.PathSuffix)
	body = c.cfg.Quirks.stripDropped(body)
	try := c.newRetrier()
	for {
		try.attempts++
		var resp *Response
		var at *attempt
		at, body, err = c.sendAdapting(func(b []byte) (*attempt, error) { return c.once(ctx, try.deadline, url, b, false) }, body)
		if err == nil {
			resp, err = c.readComplete(ctx, at)
		}
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		info, terminal := try.next(err, time.Now())
		if terminal != nil {
			return nil, terminal
		}
		if c.cfg.OnRetry != nil {
			c.cfg.OnRetry(info)
		}
		if err := sleepCtx(ctx, info.Wait); err != nil {
			return nil, err
		}
	}
}

// readComplete reads a non-streaming answer.
func (c *Client) readComplete(ctx context.Context, at *attempt) (*Response, error) {
	defer at.close()
	raw, err := io.ReadAll(io.LimitReader(at.body, maxResponseBody+1))
	if err != nil {
		return nil, c.bodyError(ctx, at, err)
	}
	if len(raw) > maxResponseBody {
		return nil, &LimitError{What: "response body", Limit: maxResponseBody}
	}
	return decodeResponse(raw)
}
