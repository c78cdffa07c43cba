package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/tools"
)

func hasTool(p *Pool, name string) bool {
	for _, tl := range p.Tools() {
		if tl.Name() == name {
			return true
		}
	}
	return false
}

// CONTRACT.md §4.7: the resource and prompt helpers are eager, read-only,
// approval Auto, and exist while a server offers that kind.
// README.md "MCP servers": a server offering resources or prompts adds list_mcp_resources, list_mcp_resource_templates, read_mcp_resource and mcp_get_prompt.
func TestEverythingResourceAndPromptHelpers(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{"everything": everythingServer(t)}, nil), Options{})
	st := requireConnected(t, p, "everything")
	if st.ProtocolVersion < "2025-06-18" {
		t.Errorf("negotiated protocol version %q, want 2025-06-18 or newer", st.ProtocolVersion)
	}
	info := p.Info()
	for _, h := range []string{HelperListResources, HelperListTemplates, HelperReadResource, HelperGetPrompt} {
		tl := findTool(t, p, h)
		in := `{"server":"everything"}`
		if h == HelperReadResource {
			in = `{"server":"everything","uri":"demo://x"}`
		}
		c, err := tools.PrepareCall(tl, json.RawMessage(in))
		if err != nil {
			t.Fatalf("%s: %v", h, err)
		}
		if c.Policy.Approval != tools.Auto || !c.Policy.ReadOnly || tl.DeferLoading() {
			t.Errorf("%s: policy %+v err %v deferred %v; want Auto, read-only, eager", h, c.Policy, err, tl.DeferLoading())
		}
		if !info.Helpers[h] || info.Servers[h] != "everything" {
			t.Errorf("%s: Info helpers %v servers %q", h, info.Helpers[h], info.Servers[h])
		}
	}
	ctx := context.Background()
	res, err := call(t, ctx, findTool(t, p, HelperListResources), `{}`)
	if err != nil || !res.Success || !strings.Contains(res.Content, `"uri":"demo://resource/static/document/architecture.md"`) ||
		!strings.Contains(res.Content, `"server":"everything"`) {
		t.Fatalf("list_mcp_resources: %+v %v", res, err)
	}
	res, err = call(t, ctx, findTool(t, p, HelperListTemplates), `{"server":"everything"}`)
	if err != nil || !res.Success || !strings.Contains(res.Content, `"uriTemplate":"demo://resource/dynamic/`) {
		t.Fatalf("list_mcp_resource_templates: %+v %v", res, err)
	}
	res, err = call(t, ctx, findTool(t, p, HelperReadResource), `{"server":"everything","uri":"demo://resource/static/document/architecture.md"}`)
	if err != nil || !res.Success || !strings.Contains(res.Content, `"mimeType":"text/markdown"`) || !strings.Contains(res.Content, "not the workspace") {
		t.Fatalf("read_mcp_resource: %+v %v", res, err)
	}
	var read struct {
		Contents []ResourceContent `json:"contents"`
	}
	if err := json.Unmarshal([]byte(res.Content), &read); err != nil || len(read.Contents) != 1 || len(read.Contents[0].Text) < 100 {
		t.Fatalf("read_mcp_resource content: %v %s", err, res.Content)
	}
	res, err = call(t, ctx, findTool(t, p, HelperGetPrompt), `{"server":"everything","name":"args-prompt","arguments":{"city":"Lisbon"}}`)
	if err != nil || !res.Success || !strings.Contains(res.Content, "[user]") || !strings.Contains(res.Content, "Lisbon") {
		t.Fatalf("mcp_get_prompt: %+v %v", res, err)
	}
	if _, err = call(t, ctx, findTool(t, p, HelperGetPrompt), `{"server":"everything","name":"args-prompt"}`); err == nil ||
		!strings.Contains(err.Error(), "needs argument(s): city") {
		t.Errorf("missing required argument: %v", err)
	}
	res, err = call(t, ctx, findTool(t, p, HelperGetPrompt), `{"server":"everything"}`)
	if err != nil || !strings.Contains(res.Content, `"name":"simple-prompt"`) {
		t.Errorf("mcp_get_prompt without name lists prompts: %+v %v", res, err)
	}
	if ins := p.Instructions(); !strings.Contains(ins, "## everything\n") || !strings.Contains(ins, "Everything Server") {
		t.Errorf("instructions section = %q", ins)
	}
}

// CONTRACT.md §4.7: a server without resources or prompts adds no helper.
func TestHelpersAbsentWithoutCapability(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{"plain": testServer(t, nil)}, nil), Options{})
	requireConnected(t, p, "plain")
	for _, h := range []string{HelperListResources, HelperListTemplates, HelperReadResource, HelperGetPrompt} {
		if hasTool(p, h) {
			t.Errorf("%s offered by a server without the capability; tools %v", h, toolNames(p))
		}
	}
	if len(p.Info().Helpers) != 0 || p.Instructions() != "" {
		t.Errorf("helpers %v instructions %q", p.Info().Helpers, p.Instructions())
	}
}

// A blob is described, never shown; a 50 MB resource and a server that
// dies while it is read give bounded errors; the other server keeps working.
// README.md "MCP servers": binary content is described by size and MIME type, a resource over 8 MB is refused, and the other servers keep working.
func TestResourceBoundsAndFailures(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{
		"res":   testServer(t, map[string]string{"MCP_TEST_RESOURCES": "1"}),
		"other": testServer(t, map[string]string{"MCP_TEST_RESOURCES": "1"}),
		"big":   testServer(t, map[string]string{"MCP_TEST_RESOURCES": "1"}),
	}, nil), Options{})
	requireConnected(t, p, "res")
	requireConnected(t, p, "other")
	if got := p.Info().Servers[HelperReadResource]; got != "big,other,res" {
		t.Errorf("helper attribution %q, want big,other,res", got)
	}
	read := findTool(t, p, HelperReadResource)
	ctx := context.Background()
	res, err := call(t, ctx, read, `{"server":"res","uri":"test://blob"}`)
	if err != nil || !strings.Contains(res.Content, `"blob":{"size":1234,"mimeType":"image/png"`) || strings.Contains(res.Content, "AAAA") {
		t.Errorf("blob: %+v %v", res, err)
	}
	start := time.Now()
	_, err = call(t, ctx, read, `{"server":"res","uri":"test://huge-listed"}`)
	if err == nil || !strings.Contains(err.Error(), "is 50.0 MB, more than the 8.0 MB codewhale reads; not read") || time.Since(start) > time.Second {
		t.Errorf("listed 50 MB resource: %v", err)
	}
	_, err = call(t, ctx, read, `{"server":"big","uri":"test://huge"}`)
	if err == nil || !strings.Contains(err.Error(), "the server's answer is larger than the 16.0 MB one stdio message may be; not read") || len(err.Error()) > 500 {
		t.Errorf("50 MB resource: %v", err)
	}
	_, err = call(t, ctx, read, `{"server":"res","uri":"test://die"}`)
	if err == nil || !strings.Contains(err.Error(), "the server stopped during the request") || len(err.Error()) > 2500 {
		t.Errorf("server died mid-read: %v", err)
	}
	for _, name := range []string{"res", "big"} {
		if st := mustStatus(t, p, name); st.State != StateDegraded {
			t.Errorf("%s: state %s, want degraded", name, st.State)
		}
	}
	res, err = call(t, ctx, read, `{"server":"other","uri":"test://small"}`)
	if err != nil || !strings.Contains(res.Content, "hello from a resource") {
		t.Errorf("the other server stopped working: %+v %v", res, err)
	}
	if got := p.Info().Servers[HelperReadResource]; got != "big,other,res" {
		t.Errorf("degraded servers keep their helpers: attribution %q", got)
	}
	if _, err := call(t, ctx, read, `{"server":"res","uri":"test://small"}`); err == nil || !strings.Contains(err.Error(), "is degraded") {
		t.Errorf("read from a degraded server: %v", err)
	}
	waitState(t, p, "res", StateConnected)
	if res, err := call(t, ctx, read, `{"server":"res","uri":"test://small"}`); err != nil || !strings.Contains(res.Content, "hello") {
		t.Errorf("read after the reconnect: %+v %v", res, err)
	}
	res, err = call(t, ctx, findTool(t, p, HelperGetPrompt), `{"server":"other","name":"greet","arguments":{"who":"Ada"}}`)
	if err != nil || !strings.Contains(res.Content, "Say hello to Ada") {
		t.Errorf("prompt: %+v %v", res, err)
	}
}

// A server that advertises resources and prompts and serves neither still
// connects (its tools work); the helpers answer with a clear error.
func TestServerLyingAboutCapabilities(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{
		"liar": testServer(t, map[string]string{"MCP_TEST_LIAR": "1", "MCP_TEST_TOOLS": "ping"}),
	}, nil), Options{})
	st := requireConnected(t, p, "liar")
	if !strings.Contains(st.ListError, "advertised a capability it did not serve") {
		t.Errorf("list error %q", st.ListError)
	}
	res, err := call(t, context.Background(), findTool(t, p, HelperListResources), `{"server":"liar"}`)
	if err != nil || res.Success || !strings.Contains(res.Content, "does not serve the method") {
		t.Errorf("list from liar: %+v %v", res, err)
	}
	_, err = call(t, context.Background(), findTool(t, p, HelperReadResource), `{"server":"liar","uri":"x://y"}`)
	if err == nil || !strings.Contains(err.Error(), "does not serve the method") {
		t.Errorf("read from liar: %v", err)
	}
	res, err = call(t, context.Background(), findTool(t, p, "mcp_liar_ping"), `{}`)
	if err != nil || !strings.Contains(res.Content, "called ping") {
		t.Errorf("tool of liar: %+v %v", res, err)
	}
}

// Instructions are bounded per server.
// README.md "MCP servers": a server's instructions are added under its name, at most 4 KB each.
func TestInstructionsBounded(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{
		"chatty": testServer(t, map[string]string{"MCP_TEST_INSTRUCTIONS": "huge"}),
	}, nil), Options{})
	requireConnected(t, p, "chatty")
	ins := p.Instructions()
	if !strings.Contains(ins, "## chatty") || !strings.Contains(ins, "[instructions cut: 4096 of 109999 bytes shown]") || len(ins) > MaxInstructionsBytes+1000 {
		t.Errorf("instructions: %d bytes, tail %q", len(ins), ins[max(0, len(ins)-100):])
	}
}

// Hostile helper inputs fail cleanly before or at the server, never panic,
// and name no server that is not configured.
func TestHelpersHostileInputs(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{
		"res":   testServer(t, map[string]string{"MCP_TEST_RESOURCES": "1"}),
		"plain": testServer(t, nil),
	}, nil), Options{})
	requireConnected(t, p, "res")
	cases := []struct{ tool, in, want string }{
		{HelperReadResource, `{"server":"nope","uri":"test://small"}`, "no MCP server named 'nope'"},
		{HelperReadResource, `{"server":"plain","uri":"test://small"}`, "does not offer resources"},
		{HelperReadResource, `{"server":"res","uri":""}`, "needs server and uri"},
		{HelperReadResource, `{"server":"res","uri":"file:///etc/passwd"}`, "failed"},
		{HelperReadResource, `{"server":"res","uri":"` + strings.Repeat("a", 1<<16) + `"}`, "failed"},
		{HelperReadResource, `{"server":["res"],"uri":"x"}`, "read_mcp_resource"},
		{HelperGetPrompt, `{"server":"res","name":"../../greet","arguments":{"who":"x"}}`, "failed"},
		{HelperGetPrompt, `{"server":"plain","name":"greet"}`, "does not offer prompts"},
		{HelperListResources, `{"server":"nope"}`, "no MCP server named 'nope'"},
	}
	for _, c := range cases {
		_, err := call(t, context.Background(), findTool(t, p, c.tool), c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 4000 {
			t.Errorf("%s %.80s: err %.300v, want %q", c.tool, c.in, err, c.want)
		}
	}
	requireConnected(t, p, "res")
}

// CONTRACT.md §4.7: a server tool whose model name is a helper's makes the
// name ambiguous: hidden, unattributed, refused.
func TestHelperNameClashIsAmbiguous(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{
		"get": testServer(t, map[string]string{"MCP_TEST_RESOURCES": "1", "MCP_TEST_TOOLS": "prompt"}),
	}, nil), Options{})
	requireConnected(t, p, "get")
	tl := findTool(t, p, HelperGetPrompt)
	if tl.ModelVisible() || p.Info().Helpers[HelperGetPrompt] {
		t.Errorf("clashing helper is visible or attributed: %v", p.Info())
	}
	if _, err := call(t, context.Background(), tl, `{"server":"get"}`); err == nil || err.Error() != AmbiguousMessage(HelperGetPrompt) {
		t.Errorf("call of the clashing name: %v", err)
	}
	if !hasTool(p, HelperReadResource) {
		t.Error("the other helpers must stay")
	}
}

// server-everything's gzip tool registers a session resource and sends
// notifications/resources/list_changed: the listing follows, and the new
// resource reads back as a blob handle with its size and MIME type.
func TestEverythingResourceListChanged(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{"everything": everythingServer(t)}, nil), Options{})
	before := requireConnected(t, p, "everything").Resources
	changed := p.Changed()
	_, err := call(t, context.Background(), findTool(t, p, "mcp_everything_gzip-file-as-resource"),
		`{"name":"hello.gz","data":"data:text/plain;base64,aGVsbG8gd29ybGQ=","outputType":"resourceLink"}`)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var uri string
	for uri == "" {
		for _, r := range p.Resources() {
			if r.Name == "hello.gz" {
				uri = r.URI
			}
		}
		if uri != "" {
			break
		}
		select {
		case <-changed:
			changed = p.Changed()
		case <-ctx.Done():
			t.Fatalf("the new resource never appeared (had %d, now %d)", before, mustStatus(t, p, "everything").Resources)
		}
	}
	res, err := call(t, context.Background(), findTool(t, p, HelperReadResource), `{"server":"everything","uri":"`+uri+`"}`)
	if err != nil || !strings.Contains(res.Content, `"blob":{"size":`) || !strings.Contains(res.Content, `"mimeType":"application/gzip"`) {
		t.Fatalf("read of the gzip resource: %+v %v", res, err)
	}
}

// "startup": "lazy" is not connected by Start nor waited for; the first
// helper call naming it connects it.
func TestLazyServerConnectsOnFirstUse(t *testing.T) {
	t.Parallel()
	lazy := testServer(t, map[string]string{"MCP_TEST_RESOURCES": "1"})
	lazy["startup"] = "lazy"
	p := startPool(t, writeConfig(t, map[string]any{
		"lazy":  lazy,
		"eager": testServer(t, map[string]string{"MCP_TEST_RESOURCES": "1"}),
	}, nil), Options{})
	requireConnected(t, p, "eager")
	if st := mustStatus(t, p, "lazy"); st.State != StatePending || !st.Lazy {
		t.Fatalf("lazy server after Start: %+v", st)
	}
	if got := p.Info().Servers[HelperReadResource]; got != "eager" {
		t.Errorf("helpers attributed to %q before the lazy server's first use", got)
	}
	res, err := call(t, context.Background(), findTool(t, p, HelperReadResource), `{"server":"lazy","uri":"test://small"}`)
	if err != nil || !strings.Contains(res.Content, "hello from a resource") {
		t.Fatalf("first use: %+v %v", res, err)
	}
	requireConnected(t, p, "lazy")
	bad := writeConfig(t, map[string]any{"x": map[string]any{"command": "true", "startup": "sometimes"}}, nil)
	if st := mustStatus(t, startPool(t, bad, Options{}), "x"); st.State != StateConfigError || !strings.Contains(st.Error, `"startup" must be "eager" or "lazy"`) {
		t.Errorf("bad startup: %+v", st)
	}
}
