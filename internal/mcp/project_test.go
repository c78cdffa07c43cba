package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codewhale/codewhale/internal/projecttrust"
)

// addEnvTool gives the test server, when MCP_TEST_ENV_TOOL=1, a tool "env"
// that answers the value of the variable named in "name" in its own
// environment ("<unset>" when it has none), so a test sees what a stdio
// server was given.
func addEnvTool(s *sdk.Server) {
	if os.Getenv("MCP_TEST_ENV_TOOL") != "1" {
		return
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}
	s.AddTool(&sdk.Tool{Name: "env", InputSchema: schema}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct{ Name string }
		_ = json.Unmarshal(req.Params.Arguments, &in)
		v, ok := os.LookupEnv(in.Name)
		if !ok {
			v = "<unset>"
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: v}}}, nil
	})
}

// README.md "MCP servers": ${VAR} is replaced by the variable, ${VAR:-default} by it or the default, and a bare $VAR is kept as written.
func TestExpandVars(t *testing.T) {
	t.Parallel()
	env := map[string]string{"TOKEN": "t0k", "EMPTY": "", "HOST": "h.example"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cases := []struct {
		in, want string
		unset    string
	}{
		{"Bearer ${TOKEN}", "Bearer t0k", ""},
		{"https://${HOST}/mcp?x=${TOKEN}", "https://h.example/mcp?x=t0k", ""},
		{"${MISSING:-fallback}", "fallback", ""},
		{"${EMPTY:-d}", "d", ""},
		{"${MISSING:-}", "", ""},
		{"a${MISSING}b", "ab", "MISSING"},
		{"${EMPTY}", "", "EMPTY"},
		{"$TOKEN stays, ${} stays, ${no-name} stays, ${unclosed", "$TOKEN stays, ${} stays, ${no-name} stays, ${unclosed", ""},
		{"${TOKEN:-x}${TOKEN}", "t0kt0k", ""},
	}
	for _, c := range cases {
		unset := map[string]bool{}
		got := expandVars(c.in, lookup, unset)
		var names []string
		for n := range unset {
			names = append(names, n)
		}
		if got != c.want || strings.Join(names, ",") != c.unset {
			t.Errorf("expandVars(%q) = %q, unset %v; want %q, unset %q", c.in, got, names, c.want, c.unset)
		}
	}
}

// An unset ${VAR} with no default makes the entry unusable, and validate
// says which variable (the bug: "Bearer ${TOKEN}" was sent literally while
// validate said ok). The listing shows the entry as written.
// README.md "MCP servers": an unset variable without a default makes the server unusable, codewhale mcp validate names it, and listings show the entry as written.
func TestUnsetVariableFailsValidation(t *testing.T) {
	t.Parallel()
	doc := `{"mcpServers": {
		"remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${CW_TEST_NEVER_SET_TOKEN}"}},
		"local": {"command": "${CW_TEST_NEVER_SET_BIN:-node}", "args": ["--port", "${CW_TEST_NEVER_SET_PORT:-3000}"]}}}`
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := Validate(path, Project{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if WriteChecks(&b, v) {
		t.Errorf("validation passed with an unset variable:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "remote: error: environment variable CW_TEST_NEVER_SET_TOKEN is not set") ||
		!strings.Contains(b.String(), "local: ok") {
		t.Errorf("validate output:\n%s", b.String())
	}
	cfg, _ := LoadConfig(path)
	if l := cfg.Servers["local"]; l.Command != "node" || strings.Join(l.Args, " ") != "--port 3000" ||
		l.Display != "${CW_TEST_NEVER_SET_BIN:-node} --port ${CW_TEST_NEVER_SET_PORT:-3000}" {
		t.Errorf("local = %q %q, display %q", l.Command, l.Args, l.Display)
	}
}

// headerRecorder is a local Streamable HTTP MCP server (the official SDK's
// handler) that keeps the Authorization and X-Team headers it received.
type headerRecorder struct {
	mu   sync.Mutex
	seen []string
}

func (h *headerRecorder) serve(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "headers", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "ping", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "pong"}}}, nil
		})
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.seen = append(h.seen, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Team")+"|"+r.URL.RawQuery)
		h.mu.Unlock()
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Not parallel: it sets the variables the config references.
func TestHeadersAndURLExpandBeforeTheyAreSent(t *testing.T) {
	t.Setenv("CW_TEST_MCP_TOKEN", "s3cr3t-value")
	t.Setenv("CW_TEST_MCP_TEAM", "")
	rec := &headerRecorder{}
	url := rec.serve(t)
	p := startPool(t, writeConfig(t, map[string]any{
		"remote": map[string]any{"url": url + "/mcp?team=${CW_TEST_MCP_TEAM:-core}",
			"headers": map[string]string{"Authorization": "Bearer ${CW_TEST_MCP_TOKEN}", "X-Team": "${CW_TEST_MCP_TEAM:-core}"}},
	}, nil), Options{})
	st := requireConnected(t, p, "remote")
	res, err := call(t, context.Background(), findTool(t, p, "mcp_remote_ping"), `{}`)
	if err != nil || !strings.Contains(res.Content, "pong") {
		t.Fatalf("ping: %+v %v", res, err)
	}
	rec.mu.Lock()
	seen := append([]string(nil), rec.seen...)
	rec.mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("the server saw no request")
	}
	for _, s := range seen {
		if s != "Bearer s3cr3t-value|core|team=core" {
			t.Errorf("request arrived with %q, want the expanded Authorization, X-Team and query", s)
		}
	}
	if strings.Contains(st.Target, "s3cr3t") || !strings.Contains(st.Target, "${CW_TEST_MCP_TEAM:-core}") {
		t.Errorf("status target %q: want the URL as written", st.Target)
	}
}

// A stdio server gets ${VAR} expanded in its env, while the parent's
// secrets stay out of its environment (the allow-list of env.go).
// README.md "MCP servers": a stdio server gets only the start-up variables plus its own env.
func TestStdioEnvExpandsButSecretsStayOut(t *testing.T) {
	t.Setenv("CW_TEST_GIVEN", "given-value")
	t.Setenv("CW_TEST_LEAK_API_KEY", "leak-value")
	srv := testServer(t, map[string]string{"MCP_TEST_ENV_TOOL": "1", "PASSED": "${CW_TEST_GIVEN}", "DEFAULTED": "${CW_TEST_NOT_SET_X:-dflt}"})
	p := startPool(t, writeConfig(t, map[string]any{"s": srv}, nil), Options{})
	requireConnected(t, p, "s")
	envTool := findTool(t, p, "mcp_s_env")
	for name, want := range map[string]string{"PASSED": "given-value", "DEFAULTED": "dflt", "CW_TEST_LEAK_API_KEY": "<unset>",
		"CW_TEST_GIVEN": "<unset>"} {
		res, err := call(t, context.Background(), envTool, `{"name":"`+name+`"}`)
		if err != nil || !strings.Contains(res.Content, `"text":"`+want+`"`) {
			t.Errorf("env %s in the server = %+v %v; want %q", name, res, err, want)
		}
	}
}

// writeProject writes a workspace's .mcp.json and returns the workspace.
func writeProject(t *testing.T, servers map[string]any) string {
	t.Helper()
	ws := t.TempDir()
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(filepath.Join(ws, ProjectFileName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

// A project's .mcp.json is behind the trust step of project files
// (internal/projecttrust): listed but not started until trusted, started
// once trusted, held again after an edit (CONTRACT.md §12.5).
// README.md "MCP servers": a workspace's .mcp.json is listed but never started until trusted, and an edited file must be trusted again.
func TestProjectMCPJSONNeedsTrust(t *testing.T) {
	t.Parallel()
	ws := writeProject(t, map[string]any{"proj": testServer(t, nil)})
	pr := Project{Workspace: ws, Home: t.TempDir()}
	user := writeConfig(t, map[string]any{}, nil)
	p := startPool(t, user, Options{Project: pr})
	st := mustStatus(t, p, "proj")
	if st.State != StateConfigError || !strings.Contains(st.Error, "not trusted yet") || len(p.Tools()) != 0 {
		t.Fatalf("untrusted project server: %+v", st)
	}
	if line := p.Project().Line(); !strings.Contains(line, "do not start until you trust the file") {
		t.Errorf("notice %q", line)
	}
	line, err := p.TrustProject(context.Background())
	if err != nil || !strings.Contains(line, "Trusted "+filepath.Join(ws, ProjectFileName)) {
		t.Fatalf("trust: %q %v", line, err)
	}
	requireConnected(t, p, "proj")
	rec, _ := projecttrust.Read(pr.Home)
	if len(rec) != 1 {
		t.Errorf("trust record %v, want the one file", rec)
	}
	// An edit (a server the model could have added) is held again.
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": testServer(t, nil), "planted": testServer(t, nil)}})
	if err := os.WriteFile(filepath.Join(ws, ProjectFileName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"proj", "planted"} {
		if st := mustStatus(t, p, name); st.State != StateConfigError || !strings.Contains(st.Error, "changed since you trusted it") {
			t.Errorf("%s after an edit: %+v", name, st)
		}
	}
}

// The person's own mcp.json wins a name both files define; a project file
// that links out of the workspace is not read.
// README.md "MCP servers": your mcp.json wins a name both files define.
func TestProjectMCPJSONCollisionAndEscape(t *testing.T) {
	t.Parallel()
	ws := writeProject(t, map[string]any{"same": map[string]any{"url": "https://project.example/mcp"}})
	home := t.TempDir()
	if _, err := TrustProject(Project{Workspace: ws, Home: home}); err != nil {
		t.Fatal(err)
	}
	user := writeConfig(t, map[string]any{"same": map[string]any{"url": "https://user.example/mcp"}}, nil)
	cfg, err := LoadAll(user, Project{Workspace: ws, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Servers["same"]; s.URL != "https://user.example/mcp" || len(s.Warnings) != 1 {
		t.Errorf("collision: %+v", s)
	}

	outside := filepath.Join(t.TempDir(), "elsewhere.json")
	if err := os.WriteFile(outside, []byte(`{"mcpServers":{"x":{"command":"true"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ws2 := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws2, ProjectFileName)); err != nil {
		t.Fatal(err)
	}
	cfg, err = LoadAll(user, Project{Workspace: ws2, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg.Servers["x"]; ok || !strings.Contains(cfg.Project.Problem, "outside the workspace") {
		t.Errorf("linked-out project file: servers %v, project %+v", cfg.Names(), cfg.Project)
	}
	if _, err := TrustProject(Project{Workspace: ws2, Home: home}); err == nil {
		t.Error("a linked-out project file was trusted")
	}
}

// `mcp add --scope project` writes Claude Code's key; a file the person
// created that way is trusted with that content, one not trusted before
// stays untrusted.
// README.md "MCP servers": mcp add --scope project writes the workspace's .mcp.json, and a file you created that way stays trusted.
func TestAddProjectServer(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	pr := Project{Workspace: ws, Home: home}
	line, err := AddProjectServer(pr, "docs", NewServer{URL: "https://docs.example/mcp",
		Headers: map[string]string{"Authorization": "Bearer ${CW_TEST_NEVER_SET_DOCS}"}})
	if err != nil || !strings.Contains(line, "trusted with this content") {
		t.Fatalf("add: %q %v", line, err)
	}
	data, _ := os.ReadFile(filepath.Join(ws, ProjectFileName))
	if !strings.Contains(string(data), `"mcpServers"`) || !strings.Contains(string(data), "${CW_TEST_NEVER_SET_DOCS}") {
		t.Errorf("written file:\n%s", data)
	}
	cfg, _ := LoadAll(writeConfig(t, map[string]any{}, nil), pr)
	if !cfg.Project.Trusted || !strings.Contains(cfg.Servers["docs"].Problem, "CW_TEST_NEVER_SET_DOCS is not set") {
		t.Errorf("after add: project %+v, docs %+v", cfg.Project, cfg.Servers["docs"])
	}

	ws2 := writeProject(t, map[string]any{"theirs": map[string]any{"command": "true"}})
	pr2 := Project{Workspace: ws2, Home: home}
	line, err = AddProjectServer(pr2, "mine", NewServer{Command: "true"})
	if err != nil || !strings.Contains(line, "which is not trusted") {
		t.Fatalf("add to an untrusted file: %q %v", line, err)
	}
	if cfg, _ := LoadAll(writeConfig(t, map[string]any{}, nil), pr2); cfg.Project.Trusted {
		t.Error("adding to an untrusted file trusted it")
	}
}
