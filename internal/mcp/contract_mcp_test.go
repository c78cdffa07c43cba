package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/tools"
)

// serveSDK runs s as an in-process Streamable HTTP MCP server and returns
// its URL; it stops when the test ends (after the pool, closed first).
func serveSDK(t *testing.T, s *sdk.Server) string {
	t.Helper()
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// CONTRACT.md §4.7: a lost server is degraded, a call meanwhile says
// "is degraded: <why>; reconnecting (attempt <n> of 3)", and the supervisor
// reconnects after 0.5 s, 1 s and 2 s before it gives up as failed.
// README.md "MCP servers": a server that dies is degraded, calls say it is reconnecting, and it is restarted after 0.5 s, 1 s and 2 s before it is failed.
func TestContractReconnectSchedule(t *testing.T) {
	t.Parallel()
	if maxReconnects != 3 {
		t.Errorf("maxReconnects = %d, want 3", maxReconnects)
	}
	for n, want := range map[int]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 3: 2 * time.Second} {
		if got := reconnectDelay(n); got != want {
			t.Errorf("reconnectDelay(%d) = %s, want %s", n, got, want)
		}
	}
	mark := filepath.Join(t.TempDir(), "dead")
	p := startPool(t, writeConfig(t, map[string]any{"mortal": testServer(t, map[string]string{"MCP_TEST_DEAD_MARK": mark})}, nil), Options{})
	requireConnected(t, p, "mortal")
	start := time.Now()
	if _, err := call(t, context.Background(), findTool(t, p, "mcp_mortal_die"), `{}`); err == nil {
		t.Fatal("die succeeded")
	}
	_, err := call(t, context.Background(), findTool(t, p, "mcp_mortal_hang"), `{}`)
	var te *tools.Error
	if !errors.As(err, &te) || !strings.HasPrefix(te.Msg, "MCP tool failed: MCP server 'mortal' is degraded: ") ||
		!strings.Contains(te.Msg, "; reconnecting (attempt 1 of 3)") {
		t.Fatalf("call while degraded: %v", err)
	}
	st := waitState(t, p, "mortal", StateFailed)
	if elapsed := time.Since(start); elapsed < 3500*time.Millisecond {
		t.Errorf("gave up %s after the loss; the waits 0.5 s + 1 s + 2 s take 3.5 s", elapsed)
	}
	if !strings.HasSuffix(st.Error, "(gave up after 3 reconnect attempts)") || len(st.Tools) != 0 {
		t.Errorf("after giving up: %+v", st)
	}
}

// CONTRACT.md §4.7: the two list helpers without `server` ask every server
// offering resources and report each failing one in "errors"; a server that
// advertised resources and prompts and serves neither says so from every
// helper, mcp_get_prompt's listing included.
func TestContractListHelpersAskEveryServer(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{
		"liar": testServer(t, map[string]string{"MCP_TEST_LIAR": "1"}),
		"res":  testServer(t, map[string]string{"MCP_TEST_RESOURCES": "1"}),
	}, nil), Options{})
	requireConnected(t, p, "liar")
	requireConnected(t, p, "res")
	for _, h := range []string{HelperListResources, HelperListTemplates} {
		res, err := call(t, context.Background(), findTool(t, p, h), `{}`)
		if err != nil {
			t.Fatalf("%s: %v", h, err)
		}
		var out struct {
			Resources []resourceEntry `json:"resources"`
			Errors    []string        `json:"errors"`
		}
		if err := json.Unmarshal([]byte(res.Content), &out); err != nil {
			t.Fatalf("%s: %v\n%s", h, err, res.Content)
		}
		if len(out.Errors) != 1 || !strings.HasPrefix(out.Errors[0], "liar: ") ||
			!strings.Contains(out.Errors[0], "advertised this capability but does not serve the method") {
			t.Errorf("%s errors: %q", h, out.Errors)
		}
		if h == HelperListResources && (len(out.Resources) == 0 || out.Resources[0].Server != "res") {
			t.Errorf("%s: the good server's resources are missing: %s", h, res.Content)
		}
	}
	for _, in := range []string{`{"server":"liar"}`, `{"server":"liar","name":"greet"}`} {
		res, err := call(t, context.Background(), findTool(t, p, HelperGetPrompt), in)
		text := res.Content
		if err != nil {
			text = err.Error()
		}
		if err == nil && res.Success || !strings.Contains(text, "advertised this capability but does not serve the method") {
			t.Errorf("mcp_get_prompt %s on the liar: %+v %v", in, res, err)
		}
	}
}

// CONTRACT.md §4.7: a missing required prompt argument is refused before
// the server is asked (no prompts/get goes out).
func TestContractMissingPromptArgumentNeverReachesTheServer(t *testing.T) {
	t.Parallel()
	trace := newTrace()
	p := startPool(t, writeConfig(t, map[string]any{"res": testServer(t, map[string]string{"MCP_TEST_RESOURCES": "1"})}, nil),
		Options{Trace: trace})
	requireConnected(t, p, "res")
	_, err := call(t, context.Background(), findTool(t, p, HelperGetPrompt), `{"server":"res","name":"greet"}`)
	var te *tools.Error
	if !errors.As(err, &te) || te.Kind != tools.KindInvalidInput || !strings.Contains(te.Msg, "needs argument(s): who") {
		t.Fatalf("missing argument: %v", err)
	}
	if strings.Contains(trace.String(), `"prompts/get"`) {
		t.Errorf("the server was asked:\n%s", trace)
	}
}

// CONTRACT.md §4.7: read_mcp_resource returns
// {"server","source","contents":[{"uri","mimeType","text"|"blob"}]}, a blob
// as {"size","mimeType","note"} with its bytes never shown.
func TestContractReadResourceShape(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{"res": testServer(t, map[string]string{"MCP_TEST_RESOURCES": "1"})}, nil), Options{})
	requireConnected(t, p, "res")
	keys := func(m map[string]any) string {
		var out []string
		for _, k := range []string{"server", "source", "contents", "uri", "mimeType", "text", "blob", "size", "note"} {
			if _, ok := m[k]; ok {
				out = append(out, k)
			}
		}
		return strings.Join(out, ",")
	}
	for uri, want := range map[string]string{"test://small": "uri,mimeType,text", "test://blob": "uri,mimeType,blob"} {
		res, err := call(t, context.Background(), findTool(t, p, HelperReadResource), `{"server":"res","uri":"`+uri+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]any
		if err := json.Unmarshal([]byte(res.Content), &top); err != nil {
			t.Fatal(err)
		}
		src, _ := top["source"].(string)
		if keys(top) != "server,source,contents" || top["server"] != "res" || !strings.Contains(src, "'res'") || !strings.Contains(src, "not the workspace") {
			t.Errorf("%s: top level %s", uri, res.Content)
		}
		contents, _ := top["contents"].([]any)
		if len(contents) != 1 {
			t.Fatalf("%s: contents %s", uri, res.Content)
		}
		item, _ := contents[0].(map[string]any)
		if keys(item) != want {
			t.Errorf("%s: item keys %s, want %s", uri, keys(item), want)
		}
		if blob, ok := item["blob"].(map[string]any); ok {
			if keys(blob) != "mimeType,size,note" && keys(blob) != "size,mimeType,note" {
				t.Errorf("blob keys %s", keys(blob))
			}
			if blob["size"] != float64(1234) || blob["mimeType"] != "image/png" || !strings.Contains(blob["note"].(string), "not shown") {
				t.Errorf("blob %v", blob)
			}
		}
	}
}

// CONTRACT.md §4.7: a resource over 8 MB by what arrived (no listed size) is
// refused with its size, bounded, and the server keeps working.
// CONTRACT.md §12.5: read_timeout bounds resources/read.
// README.md "MCP servers": a resource over 8 MB by what arrived is refused with its size.
func TestContractResourceSizeByWhatArrivedAndReadTimeout(t *testing.T) {
	t.Parallel()
	s := sdk.NewServer(&sdk.Implementation{Name: "res", Version: "1"}, nil)
	text := func(uri, body string) sdk.ResourceHandler {
		return func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: body}}}, nil
		}
	}
	s.AddResource(&sdk.Resource{URI: "big://nine", Name: "nine"}, text("big://nine", strings.Repeat("x", 9<<20)))
	s.AddResource(&sdk.Resource{URI: "ok://small", Name: "small"}, text("ok://small", "small and fine"))
	// The slow resource lives on its own server with a short read_timeout,
	// so the 9 MB read is not bounded by it on a loaded machine.
	slow := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	release := make(chan struct{})
	slow.AddResource(&sdk.Resource{URI: "slow://never", Name: "never"},
		func(ctx context.Context, _ *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			select {
			case <-ctx.Done():
			case <-release:
			}
			return nil, errors.New("released")
		})
	slow.AddResource(&sdk.Resource{URI: "ok://fast", Name: "fast"}, text("ok://fast", "fast and fine"))
	url, slowURL := serveSDK(t, s), serveSDK(t, slow)
	t.Cleanup(func() { close(release) })
	p := startPool(t, writeConfig(t, map[string]any{
		"remote": map[string]any{"url": url, "read_timeout": 60},
		"slow":   map[string]any{"url": slowURL, "read_timeout": 0.5},
	}, nil), Options{})
	requireConnected(t, p, "remote")
	requireConnected(t, p, "slow")
	read := findTool(t, p, HelperReadResource)
	_, err := call(t, context.Background(), read, `{"server":"remote","uri":"big://nine"}`)
	if err == nil || !strings.Contains(err.Error(), "is 9.0 MB, more than the 8.0 MB codewhale reads; not shown") || len(err.Error()) > 500 {
		t.Errorf("9 MB resource: %.600v", err)
	}
	if res, err := call(t, context.Background(), read, `{"server":"remote","uri":"ok://small"}`); err != nil || !strings.Contains(res.Content, "small and fine") {
		t.Errorf("the server stopped working: %+v %v", res, err)
	}
	start := time.Now()
	_, err = call(t, context.Background(), read, `{"server":"slow","uri":"slow://never"}`)
	if err == nil || !strings.Contains(err.Error(), "no answer within the read timeout (0.5s)") || time.Since(start) > 10*time.Second {
		t.Errorf("slow resource after %s: %v", time.Since(start), err)
	}
	if res, err := call(t, context.Background(), read, `{"server":"slow","uri":"ok://fast"}`); err != nil || !strings.Contains(res.Content, "fast and fine") {
		t.Errorf("the slow server stopped working after the timeout: %+v %v", res, err)
	}
	requireConnected(t, p, "remote")
	requireConnected(t, p, "slow")
}

// CONTRACT.md §12.5: notifications/prompts/list_changed re-lists the prompts
// (and resources/list_changed the resources).
// README.md "MCP servers": prompts/list_changed and resources/list_changed re-list the prompts and resources.
func TestContractPromptAndResourceListChanged(t *testing.T) {
	t.Parallel()
	s := sdk.NewServer(&sdk.Implementation{Name: "lists", Version: "1"}, nil)
	prompt := func(string) sdk.PromptHandler {
		return func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "hi"}}}}, nil
		}
	}
	res := func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{}, nil
	}
	s.AddPrompt(&sdk.Prompt{Name: "first"}, prompt("first"))
	s.AddResource(&sdk.Resource{URI: "r://first", Name: "first"}, res)
	p := startPool(t, writeConfig(t, map[string]any{"lists": map[string]any{"url": serveSDK(t, s)}}, nil), Options{})
	requireConnected(t, p, "lists")
	changed := p.Changed()
	s.AddPrompt(&sdk.Prompt{Name: "second"}, prompt("second"))
	s.AddResource(&sdk.Resource{URI: "r://second", Name: "second"}, res)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		var prompts, resources []string
		for _, pr := range p.Prompts()["lists"] {
			prompts = append(prompts, pr.Name)
		}
		for _, r := range p.Resources() {
			resources = append(resources, r.URI)
		}
		if strings.Join(prompts, ",") == "first,second" && strings.Join(resources, ",") == "r://first,r://second" {
			return
		}
		select {
		case <-changed:
			changed = p.Changed()
		case <-ctx.Done():
			t.Fatalf("prompts %v resources %v never followed the server", prompts, resources)
		}
	}
}

// versionServer is a minimal Streamable HTTP MCP server that answers
// initialize with the protocol version answer and records what the client
// offered and which methods it called.
type versionServer struct {
	answer  string
	mu      sync.Mutex
	offered []string
	methods []string
}

func (v *versionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	v.mu.Lock()
	v.methods = append(v.methods, msg.Method)
	if msg.Method == "initialize" {
		v.offered = append(v.offered, msg.Params.ProtocolVersion)
	}
	v.mu.Unlock()
	if len(msg.ID) == 0 || msg.Method == "" {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	reply := map[string]any{"jsonrpc": "2.0", "id": msg.ID}
	switch msg.Method {
	case "initialize":
		reply["result"] = map[string]any{"protocolVersion": v.answer, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "versions", "version": "1"}}
	case "tools/list":
		reply["result"] = map[string]any{"tools": []any{map[string]any{"name": "ping", "inputSchema": map[string]any{"type": "object"}}}}
	default:
		reply["error"] = map[string]any{"code": -32601, "message": "method not found: " + msg.Method}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply)
}

// CONTRACT.md §12.5: initialize offers 2025-11-25 (never the 2026-07-28
// draft's server/discover) and accepts 2025-06-18, 2025-03-26 and
// 2024-11-05.
// README.md "MCP servers": the client offers 2025-11-25 and accepts 2025-06-18, 2025-03-26 and 2024-11-05.
func TestContractProtocolVersions(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			vs := &versionServer{answer: v}
			srv := httptest.NewServer(vs)
			t.Cleanup(srv.Close)
			p := startPool(t, writeConfig(t, map[string]any{"old": map[string]any{"url": srv.URL}}, nil), Options{})
			st := requireConnected(t, p, "old")
			if st.ProtocolVersion != v || !hasTool(p, "mcp_old_ping") {
				t.Errorf("negotiated %q, tools %v", st.ProtocolVersion, toolNames(p))
			}
			vs.mu.Lock()
			defer vs.mu.Unlock()
			if strings.Join(vs.offered, ",") != "2025-11-25" {
				t.Errorf("offered %v, want 2025-11-25 once", vs.offered)
			}
			for _, m := range vs.methods {
				if strings.HasPrefix(m, "server/") {
					t.Errorf("the client called %s", m)
				}
			}
		})
	}
}

// CONTRACT.md §12.5: a "lazy" server is not connected at start nor waited
// for (even one that would hang), and connects on first use — a resource
// read naming it (what an @<server>:<uri> mention does) or /mcp reload
// <server> — contributing its tools from then on.
// README.md "MCP servers": "startup": "lazy" keeps a server from starting with the session until something names it.
func TestContractLazyStartup(t *testing.T) {
	t.Parallel()
	lazy := func(env map[string]string) map[string]any {
		s := testServer(t, env)
		s["startup"] = "lazy"
		return s
	}
	hung := lazy(map[string]string{"MCP_TEST_HANG": "1"})
	hung["connect_timeout"] = 60
	p := NewPool(writeConfig(t, map[string]any{
		"mention": lazy(map[string]string{"MCP_TEST_RESOURCES": "1", "MCP_TEST_TOOLS": "ping"}),
		"reload":  lazy(map[string]string{"MCP_TEST_TOOLS": "ping"}),
		"hung":    hung,
	}, nil), Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { _ = p.Close() })
	start := time.Now()
	p.Start(context.Background())
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Start waited %s for lazy servers", d)
	}
	for _, name := range []string{"mention", "reload", "hung"} {
		if st := mustStatus(t, p, name); st.State != StatePending {
			t.Errorf("%s after Start: %s", name, st.State)
		}
	}
	if len(p.Tools()) != 0 {
		t.Fatalf("lazy servers contribute %v before their first use", toolNames(p))
	}
	if got, err := p.Resource(context.Background(), "mention", "test://small"); err != nil || len(got) != 1 || got[0].Text != "hello from a resource" {
		t.Fatalf("first use by a resource read: %+v %v", got, err)
	}
	requireConnected(t, p, "mention")
	if !hasTool(p, "mcp_mention_ping") {
		t.Errorf("after its first use: tools %v", toolNames(p))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Reload(ctx, "reload"); err != nil {
		t.Fatal(err)
	}
	requireConnected(t, p, "reload")
	if !hasTool(p, "mcp_reload_ping") {
		t.Errorf("after /mcp reload: tools %v", toolNames(p))
	}
}

// CONTRACT.md §12.5: ${VAR} and ${VAR:-default} expand in command, args, env
// values, url and header values; an unset or empty variable without a
// default makes the entry a config_error naming it; listings show the entry
// as written.
// README.md "MCP servers": variables expand in command, args, env values, url and header values.
func TestContractVariableExpansionFields(t *testing.T) {
	t.Parallel()
	env := map[string]string{"CW_SET": "v", "CW_EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	entries := map[string]string{
		"command": `{"command": "${REF}"}`,
		"args":    `{"command": "x", "args": ["--a", "${REF}"]}`,
		"env":     `{"command": "x", "env": {"K": "${REF}"}}`,
		"url":     `{"url": "https://h.example/${REF}"}`,
		"headers": `{"url": "https://h.example/mcp", "headers": {"X-K": "${REF}"}}`,
	}
	for field, entry := range entries {
		for ref, want := range map[string]string{"CW_SET": "v", "CW_UNSET:-d": "d", "CW_EMPTY:-d": "d", "CW_UNSET": "", "CW_EMPTY": ""} {
			body := strings.ReplaceAll(entry, "REF", ref)
			cfg, err := ParseConfigEnv("mcp.json", []byte(`{"servers": {"s": `+body+`}}`), lookup)
			if err != nil {
				t.Fatal(err)
			}
			s := cfg.Servers["s"]
			got := map[string]string{"command": s.Command, "env": s.Env["K"], "headers": s.Headers["X-K"], "url": s.URL}[field]
			if field == "args" {
				got = s.Args[len(s.Args)-1]
			}
			if field == "url" {
				got = strings.TrimPrefix(got, "https://h.example/")
			}
			name, _, _ := strings.Cut(ref, ":-")
			if want == "" {
				if st := newServer(s, cfg.Effective(s)).status(); st.State != StateConfigError || !strings.Contains(st.Error, "environment variable "+name+" is not set") {
					t.Errorf("%s ${%s}: state %s error %q", field, ref, st.State, st.Error)
				}
				continue
			}
			if s.Problem != "" || got != want {
				t.Errorf("%s ${%s}: %q problem %q, want %q", field, ref, got, s.Problem, want)
			}
			if (field == "command" || field == "url") && !strings.Contains(s.Display, "${"+ref+"}") {
				t.Errorf("%s ${%s}: listed as %q, not as written", field, ref, s.Display)
			}
		}
	}
}

// CONTRACT.md §12.5: a project file's servers, until it is trusted, are
// config_error with the exact prefixes `defined in <path>, which is not
// trusted yet` and `defined in <path>, which changed since you trusted
// it`, and never start; without a workspace (--no-project-config) the file
// is not read.
// README.md "MCP servers": untrusted project servers are listed with the reason and --no-project-config ignores the file.
func TestContractProjectFilePrefixes(t *testing.T) {
	t.Parallel()
	trace := newTrace()
	ws := writeProject(t, map[string]any{"proj": testServer(t, nil)})
	path := filepath.Join(ws, ProjectFileName)
	pr := Project{Workspace: ws, Home: t.TempDir()}
	user := writeConfig(t, map[string]any{}, nil)
	p := startPool(t, user, Options{Project: pr, Trace: trace})
	if st := mustStatus(t, p, "proj"); st.State != StateConfigError || !strings.HasPrefix(st.Error, "defined in "+path+", which is not trusted yet") {
		t.Errorf("untrusted: %+v", st)
	}
	if line := p.Project().Line(); !strings.Contains(line, "(proj)") {
		t.Errorf("the start-up notice does not name the server: %q", line)
	}
	if _, err := TrustProject(pr); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": testServer(t, map[string]string{"MCP_TEST_TOOLS": "x"})}})
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := mustStatus(t, p, "proj"); st.State != StateConfigError || !strings.HasPrefix(st.Error, "defined in "+path+", which changed since you trusted it") {
		t.Errorf("changed: %+v", st)
	}
	if line := p.Project().Line(); !strings.Contains(line, "changed since you trusted it") || !strings.Contains(line, "(proj)") {
		t.Errorf("the start-up notice after the edit: %q", line)
	}
	if trace.String() != "" || len(p.Tools()) != 0 {
		t.Errorf("an untrusted project server was started:\n%s", trace)
	}
	if cfg, err := LoadAll(user, Project{}); err != nil || len(cfg.Servers) != 0 {
		t.Errorf("without a workspace the project file is read: %v %v", cfg.Names(), err)
	}
}

// CONTRACT.md §12.5: the project file is read through the confined reader:
// a .mcp.json that links to a secret in the workspace is not read.
func TestContractProjectFileLinkedToASecret(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte(`{"mcpServers":{"x":{"command":"true"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".env", filepath.Join(ws, ProjectFileName)); err != nil {
		t.Fatal(err)
	}
	pr := Project{Workspace: ws, Home: t.TempDir()}
	cfg, err := LoadAll(writeConfig(t, map[string]any{}, nil), pr)
	if err != nil || cfg.Servers["x"] != nil || cfg.Project == nil || !strings.Contains(cfg.Project.Problem, ".env") {
		t.Errorf("a project file linked to .env: servers %v project %+v err %v", cfg.Names(), cfg.Project, err)
	}
	if _, err := TrustProject(pr); err == nil {
		t.Error("a project file linked to a secret was trusted")
	}
}

// CONTRACT.md §12.5: `mcp add --scope project` keeps a file that was
// trusted trusted, with the addition.
func TestContractAddProjectServerKeepsTrust(t *testing.T) {
	t.Parallel()
	ws := writeProject(t, map[string]any{"theirs": map[string]any{"command": "true"}})
	pr := Project{Workspace: ws, Home: t.TempDir()}
	if _, err := TrustProject(pr); err != nil {
		t.Fatal(err)
	}
	line, err := AddProjectServer(pr, "mine", NewServer{Command: "true"})
	if err != nil || !strings.Contains(line, "trusted with this content") {
		t.Fatalf("add: %q %v", line, err)
	}
	cfg, err := LoadAll(writeConfig(t, map[string]any{}, nil), pr)
	if err != nil || !cfg.Project.Trusted || cfg.Servers["mine"] == nil || cfg.Servers["mine"].Problem != "" ||
		cfg.Servers["theirs"] == nil || cfg.Servers["theirs"].Problem != "" {
		t.Errorf("after add: project %+v servers %v err %v", cfg.Project, cfg.Names(), err)
	}
}

// CONTRACT.md §12.5: without a usable token a Streamable HTTP server that
// asks for authorization fails with (prefix exact) "MCP server '<name>'
// requires you to log in: run `codewhale mcp login <name>`"; the session
// opens no browser.
// README.md "MCP servers": a server needing a login fails with requires you to log in: run `codewhale mcp login <server>` and opens no browser.
func TestContractLoginRequiredPrefix(t *testing.T) {
	t.Parallel()
	_, url := protectedMCP(t)
	p := startPool(t, writeConfig(t, map[string]any{"remote": map[string]any{"url": url}}, nil),
		Options{Tokens: config.MCPTokens{Home: t.TempDir()}})
	st := mustStatus(t, p, "remote")
	if st.State != StateFailed || !strings.HasPrefix(st.Error, "MCP server 'remote' requires you to log in: run `codewhale mcp login remote`") {
		t.Errorf("status %+v", st)
	}
}

// CONTRACT.md §12.5: on the server's 401 a session refreshes the stored
// token once per token, stores the new one, and then asks for a login.
func TestContractRefreshOnceOnUnauthorized(t *testing.T) {
	t.Parallel()
	var refreshes atomic.Int32
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := refreshes.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "at-" + string(rune('0'+n)), "token_type": "Bearer",
			"expires_in": 3600, "refresh_token": "rt-" + string(rune('0'+n))})
	}))
	t.Cleanup(tokenSrv.Close)
	tokens := config.MCPTokens{Home: t.TempDir()}
	st := &storedToken{Resource: "https://mcp.example/mcp", ClientID: "c", TokenURL: tokenSrv.URL,
		Token: &oauth2.Token{AccessToken: "at-0", RefreshToken: "rt-0", Expiry: time.Now().Add(time.Hour)}}
	h := &sessionAuth{server: "remote", resource: st.Resource, store: tokens, client: tokenSrv.Client()}
	h.use(st, st.Token)
	unauthorized := func() *http.Response {
		return &http.Response{StatusCode: http.StatusUnauthorized, Body: io.NopCloser(strings.NewReader(""))}
	}
	req, _ := http.NewRequest(http.MethodPost, st.Resource, nil)
	if err := h.Authorize(context.Background(), req, unauthorized()); err != nil {
		t.Fatalf("first 401: %v", err)
	}
	if got := storedAccess(t, tokens, "remote"); refreshes.Load() != 1 || got.Token.AccessToken != "at-1" {
		t.Fatalf("after the first 401: %d refreshes, stored %q", refreshes.Load(), got.Token.AccessToken)
	}
	err := h.Authorize(context.Background(), req, unauthorized())
	var lr *LoginRequiredError
	if !errors.As(err, &lr) || !strings.HasPrefix(err.Error(), "MCP server 'remote' requires you to log in: run `codewhale mcp login remote`") {
		t.Errorf("second 401 on the refreshed token: %v", err)
	}
	if refreshes.Load() != 1 {
		t.Errorf("%d refreshes; a token is refreshed once", refreshes.Load())
	}
}

// CONTRACT.md §12.5: OAuth applies to Streamable HTTP servers whose entry
// sets no Authorization header nor bearer_token_env_var.
// README.md "MCP servers": an entry with its own Authorization header or bearer_token_env_var does not use OAuth.
func TestContractOAuthOnlyWithoutOwnAuthorization(t *testing.T) {
	t.Parallel()
	tokens := config.MCPTokens{Home: t.TempDir()}
	cases := map[string]*ServerConfig{
		"header": {Name: "h", URL: "https://mcp.example/mcp", Transport: TransportHTTP, Headers: map[string]string{"authorization": "Bearer x"}},
		"bearer": {Name: "b", URL: "https://mcp.example/mcp", Transport: TransportHTTP, BearerTokenEnvVar: "CW_TEST_UNUSED_TOKEN"},
		"sse":    {Name: "s", URL: "https://mcp.example/sse", Transport: TransportSSE},
		"plain":  {Name: "p", URL: "https://mcp.example/mcp", Transport: TransportHTTP},
	}
	for name, s := range cases {
		if name != "plain" {
			_, err := Login(context.Background(), s, LoginOptions{Tokens: tokens})
			want := "sets its own Authorization header"
			if name == "sse" {
				want = "not a Streamable HTTP server"
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: login %v, want %q", name, err, want)
			}
		}
		if name == "bearer" || name == "sse" {
			continue
		}
		d, err := dial(s, "", nil, tokens)
		if err != nil {
			t.Fatal(err)
		}
		st, ok := d.transport.(*sdk.StreamableClientTransport)
		if !ok || (st.OAuthHandler != nil) != (name == "plain") {
			t.Errorf("%s: transport %T, OAuth handler set: %v", name, d.transport, ok && st.OAuthHandler != nil)
		}
	}
}

// CONTRACT.md §4.7: an MCP server tool is network + requires_approval,
// approval Required, not read-only and deferred; the helpers are read-only,
// approval Auto and eager.
// README.md "MCP servers": server tools are deferred mcp_<server>_<tool> entries; the resource and prompt helpers are read-only and eager.
func TestContractToolPolicies(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{"res": testServer(t, map[string]string{"MCP_TEST_RESOURCES": "1", "MCP_TEST_TOOLS": "ping"})}, nil), Options{})
	requireConnected(t, p, "res")
	ping := findTool(t, p, "mcp_res_ping")
	caps := ping.Capabilities()
	if len(caps) != 2 || caps[0] != tools.CapNetwork || caps[1] != tools.CapRequiresApproval || !ping.DeferLoading() {
		t.Errorf("mcp_res_ping: caps %v deferred %v", caps, ping.DeferLoading())
	}
	if c, err := tools.PrepareCall(ping, json.RawMessage(`{}`)); err != nil || c.Policy.Approval != tools.Required || c.Policy.ReadOnly {
		t.Errorf("mcp_res_ping policy %+v %v", c, err)
	}
	for h, in := range map[string]string{HelperListResources: `{}`, HelperListTemplates: `{"server":"res"}`,
		HelperReadResource: `{"server":"res","uri":"test://small"}`, HelperGetPrompt: `{"server":"res","name":"greet"}`} {
		tl := findTool(t, p, h)
		if c, err := tools.PrepareCall(tl, json.RawMessage(in)); err != nil ||
			c.Policy.Approval != tools.Auto || !c.Policy.ReadOnly || tl.DeferLoading() {
			t.Errorf("%s: policy %+v %v deferred %v", h, c, err, tl.DeferLoading())
		}
	}
}
