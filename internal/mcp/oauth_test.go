package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/testutil/oauthserver"
)

// protectedMCP is a Streamable HTTP MCP server (the official SDK's) behind
// the local authorization server's guard; its one tool answers "hello".
func protectedMCP(t *testing.T) (*oauthserver.Server, string) {
	t.Helper()
	as := oauthserver.New(t)
	s := sdk.NewServer(&sdk.Implementation{Name: "protected", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello"}}}, nil
		})
	return as, as.Protect(t, "/mcp", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
}

// browse plays the person's browser: it opens the authorization URL and
// follows the redirect back to the loopback listener.
func browse(t *testing.T) func(string) error {
	return func(u string) error {
		resp, err := http.Get(u)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), "codewhale is authorized") {
			t.Errorf("callback page: %s", b)
		}
		return nil
	}
}

func storedAccess(t *testing.T, tokens config.MCPTokens, server string) storedToken {
	t.Helper()
	data, err := tokens.LoadToken(server)
	if err != nil || data == nil {
		t.Fatalf("no stored token for %s: %v", server, err)
	}
	var st storedToken
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// CONTRACT.md §12.5: login (discovery, dynamic registration, PKCE, loopback
// redirect), a call with the stored token, refresh after the server ends
// the access token and after it expires by the clock, logout; the token
// never appears in the log, the login's output, a status or a tool result.
// README.md "MCP servers": mcp login discovers the authorization server, registers dynamically with PKCE, stores the token, sessions refresh it, and logout removes it.
func TestOAuthLoginCallRefreshLogout(t *testing.T) {
	t.Parallel()
	as, url := protectedMCP(t)
	tokens := config.MCPTokens{Home: t.TempDir()}
	var logs bytes.Buffer
	opts := Options{Tokens: tokens, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	path := writeConfig(t, map[string]any{"remote": map[string]any{"url": url}}, nil)
	var seen []string // every token the person's store held
	var shown bytes.Buffer

	p := startPool(t, path, opts)
	if st := mustStatus(t, p, "remote"); st.State != StateFailed || !strings.Contains(st.Error, "run `codewhale mcp login remote`") {
		t.Fatalf("before login: %+v", st)
	}

	// The session's own login (/mcp login): the server reconnects with the token.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	line, err := p.Login(ctx, "remote", LoginOptions{Out: &shown, Open: browse(t)})
	if err != nil || !strings.Contains(line, "Logged in to MCP server 'remote' (1 tools)") {
		t.Fatalf("login: %q %v\n%s", line, err, shown.String())
	}
	requireConnected(t, p, "remote")
	shown.WriteString(line)
	if !strings.Contains(shown.String(), "open this URL in a browser:\n  "+as.URL+"/authorize?") {
		t.Errorf("the authorization URL was not printed:\n%s", shown.String())
	}
	c := as.Counts()
	if c.Registrations != 1 || c.Authorizations != 1 || c.CodeExchanges != 1 || as.Resource() != url {
		t.Errorf("authorization server saw %+v, resource %q", c, as.Resource())
	}
	if fi, err := os.Stat(tokens.TokenPlace("remote")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v %v", fi, err)
	}
	first := storedAccess(t, tokens, "remote")
	seen = append(seen, first.Token.AccessToken, first.Token.RefreshToken)

	var results []string
	callWhoami := func(p *Pool) {
		t.Helper()
		requireConnected(t, p, "remote")
		res, err := call(t, ctx, findTool(t, p, "mcp_remote_whoami"), `{}`)
		if err != nil || !res.Success || !strings.Contains(res.Content, "hello") {
			t.Fatalf("whoami: %+v %v", res, err)
		}
		results = append(results, res.Content)
		b, _ := json.Marshal(p.Statuses())
		results = append(results, string(b))
	}
	p2 := startPool(t, path, opts)
	callWhoami(p2)

	// The server ends the access token early: one refresh, the call goes through.
	as.ExpireAccessTokens()
	callWhoami(p2)
	second := storedAccess(t, tokens, "remote")
	if as.Counts().Refreshes != 1 || second.Token.AccessToken == first.Token.AccessToken {
		t.Errorf("after the server ended the token: %+v, stored token changed: %v", as.Counts(), second.Token.AccessToken != first.Token.AccessToken)
	}
	seen = append(seen, second.Token.AccessToken, second.Token.RefreshToken)

	// The token expires by the clock: the next session refreshes before it sends one.
	second.Token.Expiry = time.Now().Add(-time.Hour)
	data, _ := json.Marshal(second)
	if err := tokens.SaveToken("remote", data); err != nil {
		t.Fatal(err)
	}
	as.ExpireAccessTokens()
	rejected := as.Counts().Rejected
	callWhoami(startPool(t, path, opts))
	third := storedAccess(t, tokens, "remote")
	if c := as.Counts(); c.Refreshes != 2 || c.Rejected != rejected || third.Token.AccessToken == second.Token.AccessToken {
		t.Errorf("after expiry: %+v (rejected before %d)", c, rejected)
	}
	seen = append(seen, third.Token.AccessToken, third.Token.RefreshToken)

	line, err = Logout(tokens, "remote")
	if err != nil || !strings.Contains(line, "Logged out of MCP server 'remote'") {
		t.Fatalf("logout: %q %v", line, err)
	}
	if _, err := os.Stat(tokens.TokenPlace("remote")); !os.IsNotExist(err) {
		t.Errorf("token file after logout: %v", err)
	}
	p4 := startPool(t, path, opts)
	if st := mustStatus(t, p4, "remote"); st.State != StateFailed || !strings.Contains(st.Error, "codewhale mcp login remote") {
		t.Errorf("after logout: %+v", st)
	}
	b, _ := json.Marshal(p4.Statuses())
	results = append(results, string(b))

	for _, tok := range append(seen, as.Tokens()...) {
		for what, text := range map[string]string{"the log": logs.String(), "the login output": shown.String(),
			"a tool result or status": strings.Join(results, "\n")} {
			if tok != "" && strings.Contains(text, tok) {
				t.Errorf("a token appears in %s", what)
			}
		}
	}
}

// A token stored for one URL is never sent to another: an entry whose url
// changed (or a project file reusing the name) must log in again.
// README.md "MCP servers": the stored token is bound to the server's URL.
func TestOAuthTokenIsBoundToTheServerURL(t *testing.T) {
	t.Parallel()
	tokens := config.MCPTokens{Home: t.TempDir()}
	data, _ := json.Marshal(storedToken{Resource: "https://old.example/mcp", ClientID: "c", TokenURL: "https://old.example/token",
		Token: &oauth2.Token{AccessToken: "at-old"}})
	if err := tokens.SaveToken("remote", data); err != nil {
		t.Fatal(err)
	}
	s := &ServerConfig{Name: "remote", URL: "https://new.example/mcp", Transport: TransportHTTP}
	h, err := newSessionAuth(s, tokens, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	if ts, _ := h.TokenSource(context.Background()); ts != nil || LoggedIn(tokens, s) {
		t.Error("a token stored for another URL would be sent")
	}
}

// A configured oauth.client_id is used instead of dynamic registration,
// with the redirect on the configured callback port.
// README.md "MCP servers": a configured oauth client_id and callback_port are used instead of dynamic registration.
func TestOAuthLoginWithAConfiguredClient(t *testing.T) {
	t.Parallel()
	as, url := protectedMCP(t)
	port := freePort(t)
	as.AddClient("registered-by-hand", fmt.Sprintf("http://127.0.0.1:%d/callback", port))
	tokens := config.MCPTokens{Home: t.TempDir()}
	path := writeConfig(t, map[string]any{"remote": map[string]any{"url": url,
		"oauth": map[string]any{"client_id": "registered-by-hand", "callback_port": port}}}, nil)
	cfg, err := LoadConfig(path)
	if err != nil || cfg.Servers["remote"].Problem != "" {
		t.Fatalf("config: %v %+v", err, cfg.Servers["remote"])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := Login(ctx, cfg.Servers["remote"], LoginOptions{Tokens: tokens, Open: browse(t)}); err != nil {
		t.Fatal(err)
	}
	if c := as.Counts(); c.Registrations != 0 || c.CodeExchanges != 1 {
		t.Errorf("authorization server saw %+v; want no registration and one exchange", c)
	}
	if st := storedAccess(t, tokens, "remote"); st.ClientID != "registered-by-hand" {
		t.Errorf("stored client %q", st.ClientID)
	}
	p := startPool(t, path, Options{Tokens: tokens})
	requireConnected(t, p, "remote")

	// Access revoked at the provider: the refresh fails too, and the call
	// says to log in again, without a token in the answer.
	as.RevokeAll()
	before := storedAccess(t, tokens, "remote")
	res, err := call(t, ctx, findTool(t, p, "mcp_remote_whoami"), `{}`)
	text := res.Content
	if err != nil {
		text += err.Error()
	}
	if res.Success || !strings.Contains(text, "codewhale mcp login remote") {
		t.Errorf("call after revocation: %+v %v", res, err)
	}
	if strings.Contains(text, before.Token.AccessToken) || strings.Contains(text, before.Token.RefreshToken) {
		t.Error("the failed call's answer holds a token")
	}
}
