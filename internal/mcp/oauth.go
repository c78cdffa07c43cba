package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// OAuth 2.1 for Streamable HTTP servers (CONTRACT.md §12.5). `codewhale mcp
// login <server>` runs the SDK's authorization-code flow (auth.
// AuthorizationCodeHandler: protected-resource and authorization-server
// discovery, dynamic client registration or a configured client id, PKCE)
// and keeps the token in the person's secrets store through a TokenStore.
// A session only uses a stored token: it sends it, refreshes it when it
// expires or the server refuses it, and writes a refreshed token back. It
// never starts a browser flow by itself; a server that needs one fails with
// LoginRequiredError, which names the command.

// OAuthConfig is a server's "oauth" entry. Every field is optional: without
// a client id the client registers itself dynamically (RFC 7591).
type OAuthConfig struct {
	ClientID     string   `json:"client_id,omitempty"`
	ClientSecret string   `json:"client_secret,omitempty"` // ${VAR} expands; for a confidential pre-registered client
	Scopes       []string `json:"scopes,omitempty"`        // instead of the ones the server advertises
	CallbackPort int      `json:"callback_port,omitempty"` // loopback redirect port (0: any free one)
}

func (o OAuthConfig) empty() bool {
	return o.ClientID == "" && o.ClientSecret == "" && len(o.Scopes) == 0 && o.CallbackPort == 0
}

// TokenStore keeps one stored token per server: the person's secrets store
// (config.MCPTokens), files readable by them only.
type TokenStore interface {
	LoadToken(server string) ([]byte, error) // nil, nil when none is stored
	SaveToken(server string, data []byte) error
	DeleteToken(server string) (bool, error)
	TokenPlace(server string) string // where it is kept, for messages
}

// storedToken is what a login keeps: the token and what refreshing it
// needs, bound to the server URL it was granted for.
type storedToken struct {
	Resource     string        `json:"resource"`
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	AuthURL      string        `json:"auth_url"`
	TokenURL     string        `json:"token_url"`
	AuthStyle    int           `json:"auth_style,omitempty"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

func (st *storedToken) config() *oauth2.Config {
	return &oauth2.Config{ClientID: st.ClientID, ClientSecret: st.ClientSecret, Scopes: st.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: st.AuthURL, TokenURL: st.TokenURL, AuthStyle: oauth2.AuthStyle(st.AuthStyle)}}
}

// LoginRequiredError is a server that asked for authorization the session
// cannot give without the person.
type LoginRequiredError struct {
	Server string
	Reason string // "" or why the stored token could not be used
}

func (e *LoginRequiredError) Error() string {
	msg := fmt.Sprintf("MCP server '%s' requires you to log in: run `codewhale mcp login %s`", e.Server, e.Server)
	if e.Reason != "" {
		msg += " (" + e.Reason + ")"
	}
	return msg
}

// loadStored reads server's token; one granted for another URL (the entry
// was edited, or a project file reuses the name) is not used.
func loadStored(store TokenStore, server, resource string) (*storedToken, error) {
	data, err := store.LoadToken(server)
	if err != nil || data == nil {
		return nil, err
	}
	var st storedToken
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("the stored token of '%s' is unreadable (%v); log in again", server, err)
	}
	if st.Resource != resource || st.Token == nil {
		return nil, nil
	}
	return &st, nil
}

// sessionAuth is the auth.OAuthHandler of one HTTP server's connection.
type sessionAuth struct {
	server, resource string
	store            TokenStore
	client           *http.Client // token requests, under the server's network policy

	// login, set by Login, runs the browser flow on a 401 instead of
	// failing with LoginRequiredError.
	login *auth.AuthorizationCodeHandler

	mu     sync.Mutex
	st     *storedToken
	ts     oauth2.TokenSource
	forced string // the access token a forced refresh produced last
}

// newSessionAuth loads the stored token of s; without a store it is nil.
func newSessionAuth(s *ServerConfig, store TokenStore, client *http.Client) (*sessionAuth, error) {
	if store == nil {
		return nil, nil
	}
	h := &sessionAuth{server: s.Name, resource: s.URL, store: store, client: client}
	st, err := loadStored(store, s.Name, s.URL)
	if err != nil {
		return nil, err
	}
	if st != nil {
		h.use(st, st.Token)
	}
	return h, nil
}

// refreshContext carries the client for token requests and outlives any
// one request (oauth2 keeps it for every later refresh).
func (h *sessionAuth) refreshContext() context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, h.client)
}

// use installs tok as the current token, refreshed through st's client and
// saved whenever it changes. Caller holds mu or owns h.
func (h *sessionAuth) use(st *storedToken, tok *oauth2.Token) {
	h.st = st
	h.ts = &savingSource{base: st.config().TokenSource(h.refreshContext(), tok), last: tok.AccessToken,
		save: func(t *oauth2.Token) error { return h.save(st, t) }}
}

// save writes st with t as its token.
func (h *sessionAuth) save(st *storedToken, t *oauth2.Token) error {
	cp := *st
	cp.Token = t
	data, err := json.Marshal(&cp)
	if err != nil {
		return err
	}
	return h.store.SaveToken(h.server, data)
}

// TokenSource is the stored (or just obtained) token, or nil: then the
// request goes without one and a server that needs one answers 401.
func (h *sessionAuth) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	if h.login != nil {
		if ts, _ := h.login.TokenSource(ctx); ts != nil {
			return ts, nil
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ts == nil {
		return nil, nil
	}
	return h.ts, nil
}

// Authorize answers a 401 or 403. During `mcp login` it runs the browser
// flow. In a session it refreshes the stored token once even if it has not
// expired by the clock (the server may have ended it early) and lets the
// transport retry; otherwise the person must log in.
func (h *sessionAuth) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if h.login != nil {
		return h.login.Authorize(ctx, req, resp)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusForbidden {
		return fmt.Errorf("MCP server '%s' refused the request (403 Forbidden); log in again with the needed scopes: "+
			"`codewhale mcp login %s`", h.server, h.server)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.st == nil {
		return &LoginRequiredError{Server: h.server}
	}
	cur, err := h.ts.Token()
	switch {
	case err != nil:
		return &LoginRequiredError{Server: h.server, Reason: "the stored token could not be refreshed"}
	case cur.RefreshToken == "" || cur.AccessToken == h.forced:
		return &LoginRequiredError{Server: h.server, Reason: "the server refused the stored token"}
	}
	expired := *cur
	expired.AccessToken, expired.Expiry = "", time.Unix(1, 0)
	fresh, err := h.st.config().TokenSource(h.refreshContext(), &expired).Token()
	if err != nil {
		return &LoginRequiredError{Server: h.server, Reason: "the stored token could not be refreshed"}
	}
	if err := h.save(h.st, fresh); err != nil {
		return fmt.Errorf("MCP server '%s': storing the refreshed token: %w", h.server, err)
	}
	h.forced = fresh.AccessToken
	h.use(h.st, fresh)
	return nil
}

// savingSource is a token source that writes each new token to the store,
// so a refresh survives the session.
type savingSource struct {
	mu   sync.Mutex
	base oauth2.TokenSource
	last string
	save func(*oauth2.Token) error
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	t, err := s.base.Token()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.AccessToken != s.last {
		s.last = t.AccessToken
		// A failed write costs the next session a login, not this call.
		_ = s.save(t)
	}
	return t, nil
}

// hasAuthorizationHeader reports a server whose configuration sets its own
// Authorization (headers, env_headers, bearer_token_env_var): OAuth is not
// used for it.
func hasAuthorizationHeader(s *ServerConfig) bool {
	if s.BearerTokenEnvVar != "" {
		return true
	}
	for _, m := range []map[string]string{s.Headers, s.EnvHeaders} {
		for k := range m {
			if strings.EqualFold(k, "Authorization") {
				return true
			}
		}
	}
	return false
}
