package mcp

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codewhale/codewhale/internal/httptransport"
	"github.com/codewhale/codewhale/internal/netpolicy"
)

// stderrTailBytes bounds the kept stderr of a stdio server.
const stderrTailBytes = 4 << 10

// tail keeps the last bytes written to it (a server's stderr), trimmed to
// whole lines when read. It is safe for concurrent use.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrTailBytes; over > 0 {
		t.buf = append(t.buf[:0:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns the kept text, starting at a line boundary when the buffer
// was cut, without trailing blank lines.
func (t *tail) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if len(t.buf) >= stderrTailBytes {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	return strings.TrimRight(s, "\r\n\t ")
}

// lastLines returns at most n trailing lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// dialed is a transport ready to connect, plus what the pool needs to watch
// it: the child process of a stdio server and its stderr.
type dialed struct {
	transport sdk.Transport
	proc      *proc        // stdio only
	stderr    *tail        // stdio only
	stale     *atomic.Bool // HTTP only: the server rejected our session id
}

// dial builds the SDK transport for s. dir is the working directory of a
// stdio server ("" = inherit).
// tokens is the OAuth token store (nil: no OAuth).
func dial(s *ServerConfig, dir string, network *netpolicy.Policy, tokens TokenStore) (*dialed, error) {
	switch s.Transport {
	case TransportStdio:
		return dialStdio(s, dir), nil
	case TransportHTTP, TransportSSE:
		return dialHTTP(s, network, func(c *http.Client) (*sessionAuth, error) { return newSessionAuth(s, tokens, c) })
	}
	return nil, fmt.Errorf("unsupported transport %q", s.Transport)
}

// dialHTTP builds a remote server's transport. A Streamable HTTP server
// without its own Authorization header gets the OAuth handler newAuth
// makes (given the client for token requests; nil: none).
func dialHTTP(s *ServerConfig, network *netpolicy.Policy, newAuth func(*http.Client) (*sessionAuth, error)) (*dialed, error) {
	headers, err := resolveHeaders(s)
	if err != nil {
		return nil, err
	}
	base, err := policyTransport(s.URL, network)
	if err != nil {
		return nil, err
	}
	stale := &atomic.Bool{}
	client := &http.Client{Transport: &headerTransport{base: base, headers: headers, stale: stale}}
	if s.Transport == TransportSSE {
		return &dialed{transport: &sdk.SSEClientTransport{Endpoint: s.URL, HTTPClient: client}, stale: stale}, nil
	}
	t := &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: client}
	if !hasAuthorizationHeader(s) {
		h, err := newAuth(&http.Client{Transport: base, Timeout: 30 * time.Second})
		if err != nil {
			return nil, err
		}
		if h != nil {
			t.OAuthHandler = h
		}
	}
	return &dialed{transport: t, stale: stale}, nil
}

// policyTransport applies the network policy to an HTTP server's URL: a
// denied host fails the connection with the policy's reason; otherwise the
// connections go through the policy's dialer, which re-checks the deny list
// for every host it reaches.
func policyTransport(raw string, network *netpolicy.Policy) (http.RoundTripper, error) {
	if network == nil {
		return httptransport.Shared(""), nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("invalid server url %q", raw)
	}
	if d := network.Decide(u.Hostname()); d.Verdict == netpolicy.Denied {
		return nil, errors.New(d.Reason)
	}
	// Direct: the policy's dialer must see the server, not a proxy. The
	// person configured this server: its own address may be private.
	return httptransport.New(httptransport.Options{Dial: network.DialContext(netpolicy.GrantURL(u)), Direct: true}), nil
}

// resolveHeaders merges headers, env_headers and bearer_token_env_var. A
// referenced environment variable that is unset or empty is an error, so a
// missing secret fails the connection with a reason instead of a 401.
func resolveHeaders(s *ServerConfig) (map[string]string, error) {
	out := map[string]string{}
	for k, v := range s.Headers {
		out[k] = v
	}
	for header, env := range s.EnvHeaders {
		v := os.Getenv(env)
		if v == "" {
			return nil, fmt.Errorf("environment variable %s (for header %q) is not set", env, header)
		}
		out[header] = v
	}
	if s.BearerTokenEnvVar != "" {
		v := os.Getenv(s.BearerTokenEnvVar)
		if v == "" {
			return nil, fmt.Errorf("environment variable %s (bearer_token_env_var) is not set", s.BearerTokenEnvVar)
		}
		out["Authorization"] = "Bearer " + v
	}
	for k, v := range out {
		if strings.ContainsAny(v, "\r\n") {
			return nil, fmt.Errorf("header %q has a line break in its value", k)
		}
	}
	return out, nil
}

// headerTransport adds fixed headers to every request (the MCP framing
// headers Accept and Content-Type stay the SDK's) and notices when the
// server rejects our session id: a 400 or 404 answer to a request that
// carried one means the server forgot the session (it restarted), which
// the pool answers with one reconnect.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
	stale   *atomic.Bool
}

func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			switch strings.ToLower(k) {
			case "accept", "content-type":
				continue
			}
			req.Header.Set(k, v)
		}
	}
	resp, err := h.base.RoundTrip(req)
	if err == nil && req.Header.Get("Mcp-Session-Id") != "" &&
		(resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusBadRequest) {
		h.stale.Store(true)
	}
	return resp, err
}
