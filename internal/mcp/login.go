package mcp

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"golang.org/x/oauth2"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/codewhale/codewhale/internal/netpolicy"
)

// DefaultLoginTimeout is how long a login waits for the browser.
const DefaultLoginTimeout = 5 * time.Minute

// LoginOptions configure Login.
type LoginOptions struct {
	Tokens  TokenStore
	Network *netpolicy.Policy
	// Open shows the authorization URL in a browser; nil or an error
	// leaves the printed URL for the person to open.
	Open          func(url string) error
	Out           io.Writer // the URL and progress lines
	ClientVersion string
	Timeout       time.Duration // waiting for the browser (DefaultLoginTimeout when 0)
}

// Login authorizes codewhale with the Streamable HTTP server s and stores
// the token (CONTRACT.md §12.5): it connects without a stored token, and
// on the server's 401 the SDK's authorization-code handler discovers the
// authorization server, registers (or uses oauth.client_id), and sends the
// person to the authorization URL with PKCE; the redirect comes back to a
// listener on 127.0.0.1. It returns a line for the person.
func Login(ctx context.Context, s *ServerConfig, o LoginOptions) (string, error) {
	switch {
	case s.Problem != "":
		return "", fmt.Errorf("MCP server '%s': %s", s.Name, s.Problem)
	case s.Transport != TransportHTTP:
		return "", fmt.Errorf("MCP server '%s' is not a Streamable HTTP server; OAuth login applies to those only", s.Name)
	case hasAuthorizationHeader(s):
		return "", fmt.Errorf("MCP server '%s' sets its own Authorization header; remove it to log in with OAuth", s.Name)
	case o.Tokens == nil:
		return "", errors.New("no token store")
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultLoginTimeout
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	cb, err := listenCallback(s.OAuth.CallbackPort)
	if err != nil {
		return "", err
	}
	defer cb.close()
	var saved atomic.Bool
	newAuth := func(c *http.Client) (*sessionAuth, error) {
		h := &sessionAuth{server: s.Name, resource: s.URL, store: o.Tokens, client: c}
		cfg := loginConfig(s, c, cb, o, func(st *storedToken, tok *oauth2.Token) error {
			saved.Store(true)
			return h.save(st, tok)
		})
		var err error
		h.login, err = auth.NewAuthorizationCodeHandler(cfg)
		return h, err
	}
	d, err := dialHTTP(s, o.Network, newAuth)
	if err != nil {
		return "", err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: ClientName, Version: o.ClientVersion}, nil)
	cctx, cancel := context.WithTimeout(ctx, o.Timeout+30*time.Second)
	defer cancel()
	sess, err := client.Connect(cctx, d.transport, nil)
	if err != nil {
		return "", fmt.Errorf("logging in to MCP server '%s': %w", s.Name, err)
	}
	defer sess.Close()
	n := 0
	for _, err := range sess.Tools(cctx, nil) {
		if err != nil {
			return "", fmt.Errorf("logged in to MCP server '%s', but listing its tools failed: %w", s.Name, err)
		}
		n++
	}
	if !saved.Load() {
		return fmt.Sprintf("MCP server '%s' did not ask for authorization (%d tools); nothing was stored.", s.Name, n), nil
	}
	return fmt.Sprintf("Logged in to MCP server '%s' (%d tools). The token is kept in %s; sessions refresh it, "+
		"`codewhale mcp logout %s` removes it.", s.Name, n, o.Tokens.TokenPlace(s.Name), s.Name), nil
}

// loginConfig is the SDK handler's configuration for s: a configured
// client id, else dynamic registration as a native (loopback) client that
// asks for refresh tokens; every token obtained goes to save with what
// refreshing it needs.
func loginConfig(s *ServerConfig, c *http.Client, cb *callback, o LoginOptions,
	save func(*storedToken, *oauth2.Token) error) *auth.AuthorizationCodeHandlerConfig {
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: cb.redirect, Client: c, RequestRefreshToken: true,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return cb.fetch(ctx, s.Name, args.URL, o)
		},
		NewTokenSource: func(ctx context.Context, oc *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			st := &storedToken{Resource: s.URL, ClientID: oc.ClientID, ClientSecret: oc.ClientSecret,
				AuthURL: oc.Endpoint.AuthURL, TokenURL: oc.Endpoint.TokenURL, AuthStyle: int(oc.Endpoint.AuthStyle), Scopes: oc.Scopes}
			if err := save(st, tok); err != nil {
				return nil, fmt.Errorf("storing the token: %w", err)
			}
			return oc.TokenSource(ctx, tok), nil
		},
	}
	if s.OAuth.ClientID != "" {
		cred := &oauthex.ClientCredentials{ClientID: s.OAuth.ClientID}
		if s.OAuth.ClientSecret != "" {
			cred.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: s.OAuth.ClientSecret}
		}
		cfg.PreregisteredClient = cred
	} else {
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{cb.redirect}, ClientName: "codewhale", TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}}}
	}
	if len(s.OAuth.Scopes) > 0 {
		scopes := s.OAuth.Scopes
		cfg.ScopeFilter = func([]string) []string { return scopes }
	}
	return cfg
}

// callback is the loopback listener the authorization server redirects
// the browser to.
type callback struct {
	redirect string
	srv      *http.Server
	results  chan *auth.AuthorizationResult
	errs     chan error
}

func listenCallback(port int) (*callback, error) {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, fmt.Errorf("listening for the OAuth redirect on 127.0.0.1:%d: %w (set oauth.callback_port to a free port)", port, err)
	}
	cb := &callback{redirect: fmt.Sprintf("http://127.0.0.1:%d/callback", l.Addr().(*net.TCPAddr).Port),
		results: make(chan *auth.AuthorizationResult, 1), errs: make(chan error, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", cb.serve)
	cb.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = cb.srv.Serve(l) }() // ended by close
	return cb, nil
}

func (cb *callback) close() { _ = cb.srv.Close() }

func (cb *callback) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if e := q.Get("error"); e != "" {
		fmt.Fprintf(w, "<p>Authorization failed: %s. You can close this window.</p>", html.EscapeString(e))
		select {
		case cb.errs <- fmt.Errorf("the authorization server answered %s: %s", e, q.Get("error_description")):
		default:
		}
		return
	}
	fmt.Fprint(w, "<p>codewhale is authorized. You can close this window.</p>")
	select {
	case cb.results <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
	default:
	}
}

// fetch shows the person the authorization URL (printed always, opened in
// a browser when one can be) and waits for the redirect.
func (cb *callback) fetch(ctx context.Context, server, url string, o LoginOptions) (*auth.AuthorizationResult, error) {
	fmt.Fprintf(o.Out, "To log in to MCP server '%s', open this URL in a browser:\n  %s\n", server, url)
	if o.Open != nil {
		if err := o.Open(url); err != nil {
			fmt.Fprintf(o.Out, "(no browser could be opened: %v)\n", err)
		}
	}
	fmt.Fprintf(o.Out, "Waiting for the browser to come back to %s …\n", cb.redirect)
	t := time.NewTimer(o.Timeout)
	defer t.Stop()
	select {
	case r := <-cb.results:
		return r, nil
	case err := <-cb.errs:
		return nil, err
	case <-t.C:
		return nil, fmt.Errorf("no answer from the browser within %s; run the login again", o.Timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Logout removes server's stored token. It reports whether there was one.
func Logout(tokens TokenStore, server string) (string, error) {
	had, err := tokens.DeleteToken(server)
	if err != nil {
		return "", fmt.Errorf("removing the token of MCP server '%s': %w", server, err)
	}
	if !had {
		return fmt.Sprintf("No token is stored for MCP server '%s'.", server), nil
	}
	return fmt.Sprintf("Logged out of MCP server '%s': removed its token from %s.", server, tokens.TokenPlace(server)), nil
}

// LoggedIn reports whether a token is stored for s's URL.
func LoggedIn(tokens TokenStore, s *ServerConfig) bool {
	if tokens == nil {
		return false
	}
	st, err := loadStored(tokens, s.Name, s.URL)
	return err == nil && st != nil
}

// Login is Login for the pool's server name with the pool's token store,
// network policy and client version, followed by a reconnect of that
// server, so a session (`/mcp login`) signs in without a restart. o gives
// the browser opener and where the URL is shown.
func (p *Pool) Login(ctx context.Context, name string, o LoginOptions) (string, error) {
	p.mu.Lock()
	var s *ServerConfig
	if p.cfg != nil {
		s = p.cfg.Servers[name]
	}
	p.mu.Unlock()
	if s == nil {
		return "", fmt.Errorf("no MCP server named '%s' in %s", name, p.path)
	}
	if p.opts.Tokens == nil {
		return "", errors.New("this session keeps no MCP tokens")
	}
	o.Tokens, o.Network, o.ClientVersion = p.opts.Tokens, p.opts.Network, p.opts.ClientVersion
	line, err := Login(ctx, s, o)
	if err != nil {
		return "", err
	}
	return line, p.Reload(ctx, name)
}
