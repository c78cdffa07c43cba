// Package oauthserver is a small OAuth 2.1 authorization server on loopback
// for tests, implementing what the MCP authorization spec asks of one:
// authorization-server metadata (RFC 8414), dynamic client registration
// (RFC 7591), the authorization-code grant with PKCE S256 only, refresh
// tokens, and a resource guard that answers 401 with the protected-resource
// metadata (RFC 9728) an MCP client discovers it from. /authorize approves
// at once (the test plays the person's browser) and redirects to the
// registered loopback URI. Access and refresh tokens are random; the server
// keeps which are live, so a test can expire the access tokens and see the
// client refresh.
package oauthserver

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Server is the authorization server and the guard for one resource.
type Server struct {
	URL string // the issuer, http://127.0.0.1:PORT

	mu       sync.Mutex
	clients  map[string][]string // client id -> redirect URIs
	codes    map[string]grant
	access   map[string]bool // live access tokens
	refresh  map[string]bool // live refresh tokens
	counts   Counts
	resource string
}

// Counts are what the server did.
type Counts struct {
	Registrations, Authorizations, CodeExchanges, Refreshes, Rejected int
}

type grant struct {
	clientID, redirect, challenge, resource string
}

// New starts the server on loopback; it stops when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{clients: map[string][]string{}, codes: map[string]grant{}, access: map[string]bool{}, refresh: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	s.URL = hs.URL
	return s
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, code int, kind, desc string) {
	writeJSON(w, code, map[string]string{"error": kind, "error_description": desc})
}

func random() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer": s.URL, "authorization_endpoint": s.URL + "/authorize", "token_endpoint": s.URL + "/token",
		"registration_endpoint": s.URL + "/register", "response_types_supported": []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported":                      []string{"mcp", "offline_access"},
	})
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var meta struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "redirect_uris is required")
		return
	}
	for _, u := range meta.RedirectURIs {
		if p, err := url.Parse(u); err != nil || p.Hostname() != "127.0.0.1" && p.Hostname() != "localhost" {
			oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "only loopback redirect URIs are accepted: "+u)
			return
		}
	}
	id := "client-" + random()[:12]
	s.mu.Lock()
	s.clients[id] = meta.RedirectURIs
	s.counts.Registrations++
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs,
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}})
}

// authorize approves the request at once, as the person would, after the
// checks a real server makes: a registered client and redirect URI, a
// state, and a PKCE S256 challenge.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	uris, known := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	switch {
	case !known || !slices.Contains(uris, q.Get("redirect_uri")):
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" ||
		q.Get("state") == "":
		http.Error(w, "response_type=code, state and a PKCE S256 code_challenge are required", http.StatusBadRequest)
		return
	}
	code := random()
	s.mu.Lock()
	s.codes[code] = grant{clientID: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"),
		resource: q.Get("resource")}
	s.counts.Authorizations++
	s.mu.Unlock()
	to, _ := url.Parse(q.Get("redirect_uri"))
	back := to.Query()
	back.Set("code", code)
	back.Set("state", q.Get("state"))
	to.RawQuery = back.Encode()
	http.Redirect(w, r, to.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		s.exchange(w, r)
	case "refresh_token":
		s.mu.Lock()
		ok := s.refresh[r.PostForm.Get("refresh_token")]
		delete(s.refresh, r.PostForm.Get("refresh_token")) // rotated, as OAuth 2.1 asks of public clients
		if ok {
			s.counts.Refreshes++
		}
		s.mu.Unlock()
		if !ok {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown refresh token")
			return
		}
		s.issue(w)
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", r.PostForm.Get("grant_type"))
	}
}

func (s *Server) exchange(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	client := f.Get("client_id")
	if id, _, ok := r.BasicAuth(); ok && client == "" {
		client = id // client_secret_basic's form, which clients try first
	}
	s.mu.Lock()
	g, ok := s.codes[f.Get("code")]
	delete(s.codes, f.Get("code")) // one use
	s.mu.Unlock()
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	switch {
	case !ok || g.clientID != client || g.redirect != f.Get("redirect_uri"):
		oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown code, or another client or redirect_uri")
		return
	case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the PKCE code_verifier does not match the challenge")
		return
	}
	s.mu.Lock()
	s.counts.CodeExchanges++
	s.resource = g.resource
	s.mu.Unlock()
	s.issue(w)
}

// issue answers a fresh access token (valid for an hour) and refresh token.
func (s *Server) issue(w http.ResponseWriter) {
	at, rt := "at-"+random(), "rt-"+random()
	s.mu.Lock()
	s.access[at], s.refresh[rt] = true, true
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600,
		"refresh_token": rt, "scope": "mcp offline_access"})
}

// AddClient pre-registers a public client, as a person registering an app
// with the provider does.
func (s *Server) AddClient(id string, redirectURIs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients[id] = redirectURIs
}

// ExpireAccessTokens ends every access token issued so far, as their
// lifetime running out would; refresh tokens stay valid.
func (s *Server) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.access = map[string]bool{}
}

// RevokeAll ends every access and refresh token, as a person revoking the
// app's access at the provider does.
func (s *Server) RevokeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.access, s.refresh = map[string]bool{}, map[string]bool{}
}

// Counts reports what the server did so far.
func (s *Server) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts
}

// Resource is the resource indicator (RFC 8707) of the last code exchange.
func (s *Server) Resource() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resource
}

// Tokens are every access and refresh token still live, for a test that
// checks none leaked.
func (s *Server) Tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for t := range s.access {
		out = append(out, t)
	}
	for t := range s.refresh {
		out = append(out, t)
	}
	return out
}

// Protect starts a server for the resource handler h at path (e.g. "/mcp")
// that admits only requests bearing a live access token and answers others
// 401 with a WWW-Authenticate challenge naming its protected-resource
// metadata, which it serves. It returns the resource URL.
func (s *Server) Protect(t testing.TB, path string, h http.Handler) string {
	t.Helper()
	var resource string
	mux := http.NewServeMux()
	meta := func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": resource, "authorization_servers": []string{s.URL},
			"scopes_supported": []string{"mcp"}, "bearer_methods_supported": []string{"header"}})
	}
	mux.HandleFunc("GET /.well-known/oauth-protected-resource"+path, meta)
	mux.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization")
		tok, isBearer := strings.CutPrefix(got, "Bearer ")
		s.mu.Lock()
		live := isBearer && s.access[tok]
		if !live {
			s.counts.Rejected++
		}
		s.mu.Unlock()
		if !live {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource%s", scope="mcp"`,
				strings.TrimSuffix(resource, path), path))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	resource = hs.URL + path
	return resource
}
