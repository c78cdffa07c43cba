package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/testutil/oauthserver"
)

// CONTRACT.md §12.5: `mcp login` against a local authorization server in
// front of a local Streamable HTTP MCP server (the URL printed, no
// browser), a model's call of the server's tool in `exec`, `mcp logout`;
// the token appears in no output, no file of the home but its secrets
// store, and nothing the model was sent.
func TestMCPOAuthLoginExecLogout(t *testing.T) {
	t.Parallel()
	as := oauthserver.New(t)
	s := sdk.NewServer(&sdk.Implementation{Name: "protected", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "whoami", Description: "who the caller is", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello from the protected server"}}}, nil
		})
	url := as.Protect(t, "/mcp", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "s", Name: "tool_search", Args: `{"query":"whoami"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "w", Name: "mcp_remote_whoami", Args: `{}`}),
		fakemodel.Text("Done."))
	c := newCLI(t, srv)
	// The authorization server is a dev server on loopback: the person lists it.
	c.config("[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n[network]\nallow_private = [\"127.0.0.1\"]\n")
	home := filepath.Join(c.home, ".codewhale")
	cfg, _ := json.Marshal(map[string]any{"servers": map[string]any{"remote": map[string]any{"url": url}}})
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	var outputs []string

	login := c.command("mcp", "login", "remote", "--no-browser")
	stderr, err := login.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	login.Stdout = &stdout
	if err := login.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var printed strings.Builder
	for sc.Scan() {
		printed.WriteString(sc.Text() + "\n")
		if u, ok := strings.CutPrefix(sc.Text(), "  "); ok && strings.HasPrefix(u, as.URL+"/authorize?") {
			resp, err := http.Get(u) // the person's browser, following the redirect to the loopback listener
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
	}
	if err := login.Wait(); err != nil || !strings.Contains(stdout.String(), "Logged in to MCP server 'remote' (1 tools)") {
		t.Fatalf("login: %v\nstdout %s\nstderr %s", err, stdout.String(), printed.String())
	}
	outputs = append(outputs, stdout.String(), printed.String())
	tokenFile := filepath.Join(home, "secrets", "mcp", "remote.json")
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}

	out, errOut, code := c.run("exec", "--auto", "--output-format", "stream-json", "who am I?")
	if code != 0 {
		t.Fatalf("exec: %d\n%s\n%s", code, out, errOut)
	}
	outputs = append(outputs, out, errOut)
	reqs := srv.Requests()
	if len(reqs) != 3 || !reqs[2].HasToolResult("hello from the protected server") {
		t.Fatalf("the protected tool's result did not reach the model (%d requests)", len(reqs))
	}
	for _, r := range reqs {
		outputs = append(outputs, string(r.Raw))
	}

	var stored struct {
		Token struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
		} `json:"token"`
	}
	data, _ := os.ReadFile(tokenFile)
	if err := json.Unmarshal(data, &stored); err != nil || stored.Token.AccessToken == "" {
		t.Fatalf("stored token: %v %s", err, data)
	}
	secretsDir := filepath.Join(home, "secrets")
	tokens := append(as.Tokens(), stored.Token.AccessToken, stored.Token.RefreshToken)

	out, errOut, code = c.run("mcp", "logout", "remote")
	if code != 0 || !strings.Contains(out, "Logged out of MCP server 'remote'") {
		t.Fatalf("logout: %d %s %s", code, out, errOut)
	}
	out, errOut, _ = c.run("mcp", "list")
	if !strings.Contains(out, "codewhale mcp login remote") {
		t.Errorf("after logout, mcp list:\n%s%s", out, errOut)
	}
	outputs = append(outputs, out, errOut)

	_ = filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(p, secretsDir+string(filepath.Separator)) {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		outputs = append(outputs, string(b))
		return nil
	})
	all := strings.Join(outputs, "\n")
	if !strings.Contains(all, "hello from the protected server") {
		t.Error("no session file or output held the tool result: the leak check would prove nothing")
	}
	for _, tok := range tokens {
		if tok != "" && strings.Contains(all, tok) {
			t.Errorf("a token appears outside the secrets store (output, a session file, or a model request)")
		}
	}
}
