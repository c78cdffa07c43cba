package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools"
)

// One good server and several broken ones: the good one's tools appear, each
// broken one is reported with its reason and contributes nothing.
// README.md "MCP servers": a failed server contributes no tools and is reported with why.
func TestPoolGoodAndBrokenServers(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, map[string]any{
		"good":     testServer(t, nil),
		"crashes":  map[string]any{"command": "sh", "args": []string{"-c", "echo 'boom: API key missing' >&2; exit 3"}},
		"missing":  map[string]any{"command": "/nonexistent/mcp-server"},
		"badurl":   map[string]any{"url": "ftp://example.invalid/mcp"},
		"off":      map[string]any{"command": "sh", "enabled": false},
		"offtoo":   map[string]any{"command": "sh", "disabled": true},
		"required": map[string]any{"command": "/nonexistent/other", "required": true},
	}, nil)
	p := startPool(t, path, Options{})
	requireConnected(t, p, "good")
	cases := []struct {
		server string
		state  State
		errHas string
	}{
		{"crashes", StateFailed, "the server exited during startup (exit status 3)"},
		{"missing", StateFailed, "/nonexistent/mcp-server"},
		{"badurl", StateConfigError, "must start with http:// or https://"},
		{"off", StateDisabled, ""},
		{"offtoo", StateDisabled, ""},
		{"required", StateFailed, "/nonexistent/other"},
	}
	for _, c := range cases {
		st := mustStatus(t, p, c.server)
		if st.State != c.state || !strings.Contains(st.Error, c.errHas) {
			t.Errorf("%s: state %s error %q; want %s containing %q", c.server, st.State, st.Error, c.state, c.errHas)
		}
		if len(st.Tools) != 0 {
			t.Errorf("%s: a server that is not connected lists tools %v", c.server, st.Tools)
		}
	}
	if tail := mustStatus(t, p, "crashes").StderrTail; !strings.Contains(tail, "boom: API key missing") {
		t.Errorf("stderr tail = %q, want the crash message", tail)
	}
	for name, server := range p.Info().Servers {
		if server != "good" {
			t.Errorf("model name %s attributed to %s; only 'good' is connected", name, server)
		}
	}
	if _, ok := p.Info().Servers["mcp_good_hang"]; !ok {
		t.Errorf("good server's tools missing: %v", p.Info().Servers)
	}
	if err := p.RequiredFailures(); err == nil || !strings.Contains(err.Error(), "'required'") {
		t.Errorf("RequiredFailures() = %v, want the required server named", err)
	}
}

// The contract's example: server "my" + tool "db_execute_sql" and server
// "my_db" + tool "execute_sql" both give mcp_my_db_execute_sql.
func TestPoolHidesAmbiguousModelNames(t *testing.T) {
	t.Parallel()
	trace, logs := newTrace(), newTrace()
	p := startPool(t, writeConfig(t, map[string]any{
		"my":    testServer(t, map[string]string{"MCP_TEST_TOOLS": "db_execute_sql"}),
		"my_db": testServer(t, map[string]string{"MCP_TEST_TOOLS": "execute_sql"}),
	}, nil), Options{Trace: trace, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	requireConnected(t, p, "my")
	requireConnected(t, p, "my_db")
	const name = "mcp_my_db_execute_sql"
	if s, ok := p.Info().Servers[name]; ok {
		t.Fatalf("ambiguous %s attributed to %s", name, s)
	}
	if _, ok := p.Server(name); ok {
		t.Fatal("Server() must not resolve an ambiguous name")
	}
	if !strings.Contains(logs.String(), `msg="hiding ambiguous MCP model tool name" name=mcp_my_db_execute_sql`) {
		t.Errorf("the hidden name was not logged: %s", logs)
	}
	var hidden tools.Tool
	for _, tl := range p.Tools() {
		if tl.Name() == name {
			hidden = tl
		}
	}
	if hidden == nil || hidden.ModelVisible() {
		t.Fatalf("want a hidden refusal registered for %s, got %v", name, hidden)
	}
	_, err := call(t, context.Background(), hidden, `{}`)
	var te *tools.Error
	if !errors.As(err, &te) || te.Render(name) != "Ambiguous MCP tool name 'mcp_my_db_execute_sql' matches more than one server/tool authority" {
		t.Fatalf("call err = %v", err)
	}
	if strings.Contains(trace.String(), `"tools/call"`) {
		t.Errorf("an ambiguous call contacted a server:\n%s", trace)
	}
	// Unambiguous names of both servers stay available.
	for _, n := range []string{"mcp_my_hang", "mcp_my_db_hang"} {
		if _, ok := p.Info().Servers[n]; !ok {
			t.Errorf("%s missing from Info", n)
		}
	}
}

func TestPoolToolFiltersAndResults(t *testing.T) {
	t.Parallel()
	srv := testServer(t, nil)
	srv["enabled_tools"] = []string{"huge", "fail", "hang"}
	srv["disabled_tools"] = []string{"hang"}
	srv["execute_timeout"] = 30 // the huge result takes a while under -race on a loaded machine
	p := startPool(t, writeConfig(t, map[string]any{"t": srv}, nil), Options{})
	st := requireConnected(t, p, "t")
	var names []string
	for _, ti := range st.Tools {
		names = append(names, ti.ModelName)
	}
	if strings.Join(names, ",") != "mcp_t_fail,mcp_t_huge" {
		t.Fatalf("tools = %v, want enabled_tools minus disabled_tools", names)
	}

	res, err := call(t, context.Background(), findTool(t, p, "mcp_t_fail"), `{}`)
	if err != nil || res.Success || res.Content != "first problem\nsecond problem" {
		t.Errorf("isError result = %+v, %v; want failure with the joined text", res, err)
	}

	res, err = call(t, context.Background(), findTool(t, p, "mcp_t_huge"), `{}`)
	if err != nil || !res.Success {
		t.Fatalf("huge: %+v, %v", res, err)
	}
	// Cut to the call's budget (the default 48,000 characters) as valid JSON
	// with a receipt; the metadata keeps the server's full size.
	if n := utf8.RuneCountInString(res.Content); n > tools.DefaultBudget || !json.Valid([]byte(res.Content)) ||
		!strings.Contains(res.Content, `"truncation":{"note":"cut to fit the 48000-character result budget`) || res.Metadata["bytes"] != 307239 {
		t.Errorf("huge result not bounded: %d chars, metadata %v", n, res.Metadata)
	}
}

func TestPoolExecuteTimeout(t *testing.T) {
	t.Parallel()
	srv := testServer(t, nil)
	srv["execute_timeout"] = 1
	p := startPool(t, writeConfig(t, map[string]any{"slow": srv}, nil), Options{})
	requireConnected(t, p, "slow")
	_, err := call(t, context.Background(), findTool(t, p, "mcp_slow_hang"), `{}`)
	var te *tools.Error
	want := "MCP tool failed: MCP method 'tools/call' on server 'slow' timed out after 1s"
	if !errors.As(err, &te) || te.Kind != tools.KindExecutionFailed || te.Render("mcp_slow_hang") != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	requireConnected(t, p, "slow") // a timeout does not kill the session
}

// A server that never answers initialize fails at its connect timeout while
// a healthy one connects in the same Start.
func TestPoolConnectTimeout(t *testing.T) {
	t.Parallel()
	hung := testServer(t, map[string]string{"MCP_TEST_HANG": "1"})
	hung["connect_timeout"] = 0.5
	p := startPool(t, writeConfig(t, map[string]any{"hung": hung, "ok": testServer(t, nil)}, nil), Options{})
	requireConnected(t, p, "ok")
	st := mustStatus(t, p, "hung")
	if st.State != StateFailed || !strings.Contains(st.Error, "connect timeout (0.5s)") {
		t.Fatalf("hung: state %s error %q", st.State, st.Error)
	}
}

func TestPoolMalformedConfigNeverPanics(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, nil, nil)
	if err := os.WriteFile(path, []byte("{\n  \"servers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startPool(t, path, Options{})
	err := p.ConfigError()
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "line 3, column 26") {
		t.Fatalf("ConfigError() = %v, want the file and line 3, column 26", err)
	}
	if len(p.Tools()) != 0 || len(p.Statuses()) != 0 {
		t.Fatal("a malformed file yields no servers and no tools")
	}
	if err := p.Reload(context.Background()); err == nil {
		t.Fatal("Reload of a malformed file must report it")
	}
}

func TestPoolReloadFollowsTheFile(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, map[string]any{"a": testServer(t, nil)}, nil)
	p := startPool(t, path, Options{})
	requireConnected(t, p, "a")

	b := writeConfig(t, map[string]any{"b": testServer(t, map[string]string{"MCP_TEST_TOOLS": "extra"})}, nil)
	data, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := p.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Status("a"); ok {
		t.Error("server removed from the file is still listed")
	}
	requireConnected(t, p, "b")
	if _, ok := p.Info().Servers["mcp_b_extra"]; !ok || len(p.Info().Servers) != 6 { // extra, the built-in test tools and die
		t.Errorf("Info after reload = %v", p.Info().Servers)
	}
	if err := p.Reload(context.Background(), "nope"); err == nil || !strings.Contains(err.Error(), "'nope'") {
		t.Errorf("Reload of an unknown server = %v", err)
	}
}

// notifications/tools/list_changed after the handshake re-lists the tools.
func TestPoolRefreshesToolsOnListChanged(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{"g": testServer(t, nil)}, nil), Options{})
	requireConnected(t, p, "g")
	if _, ok := p.Info().Servers["mcp_g_grown"]; ok {
		t.Fatal("mcp_g_grown exists before grow was called")
	}
	changed := p.Changed()
	if _, err := call(t, context.Background(), findTool(t, p, "mcp_g_grow"), `{}`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		if _, ok := p.Info().Servers["mcp_g_grown"]; ok {
			return
		}
		select {
		case <-changed:
			changed = p.Changed()
		case <-ctx.Done():
			t.Fatalf("mcp_g_grown never appeared; tools %v", toolNames(p))
		}
	}
}

// Two concurrent Starts (the UI and the first turn, say) start each server
// once, and both return only when it has settled.
func TestPoolConcurrentStartsConnectOnce(t *testing.T) {
	t.Parallel()
	trace := newTrace()
	p := NewPool(writeConfig(t, map[string]any{"a": testServer(t, nil)}, nil),
		Options{Trace: trace, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { _ = p.Close() })
	var wg sync.WaitGroup
	states := make([]State, 2)
	for i := range states {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Start(context.Background())
			st, _ := p.Status("a")
			states[i] = st.State
		}()
	}
	wg.Wait()
	if states[0] != StateConnected || states[1] != StateConnected {
		t.Errorf("states seen when each Start returned: %v; both must wait for the connection", states)
	}
	if n := strings.Count(trace.String(), `"method":"initialize"`); n != 1 {
		t.Errorf("initialize sent %d times, want 1", n)
	}
}

// A server that dies and cannot start again is degraded while the
// supervisor tries, then failed with no tools; the other server never
// stops working.
func TestPoolGivesUpReconnecting(t *testing.T) {
	t.Parallel()
	mark := filepath.Join(t.TempDir(), "dead")
	p := startPool(t, writeConfig(t, map[string]any{
		"mortal": testServer(t, map[string]string{"MCP_TEST_DEAD_MARK": mark}),
		"steady": testServer(t, map[string]string{"MCP_TEST_TOOLS": "ping"}),
	}, nil), Options{})
	requireConnected(t, p, "mortal")
	mortal := func() (n int) {
		for name := range p.Info().Servers {
			if strings.HasPrefix(name, "mcp_mortal_") {
				n++
			}
		}
		return n
	}
	before := mortal()
	_, err := call(t, context.Background(), findTool(t, p, "mcp_mortal_die"), `{}`)
	if err == nil || !strings.Contains(err.Error(), "stopped during the call") {
		t.Fatalf("die: %v", err)
	}
	if n := mortal(); n != before || before == 0 {
		t.Errorf("the degraded server has %d tools, had %d", n, before)
	}
	if res, err := call(t, context.Background(), findTool(t, p, "mcp_steady_ping"), `{}`); err != nil || !strings.Contains(res.Content, "called ping") {
		t.Errorf("the other server: %+v %v", res, err)
	}
	st := waitState(t, p, "mortal", StateFailed)
	if !strings.Contains(st.Error, "gave up after 3 reconnect attempts") || st.Degraded {
		t.Errorf("after giving up: %+v", st)
	}
	if n := mortal(); n != 0 {
		t.Errorf("a failed server still contributes %d tools", n)
	}
}

// notifications/tools/list_changed changes what the next turn's catalog
// holds, and so the active tool catalog digest /tools shows (Full Access
// sends MCP tools eagerly, so the new tool is in the request).
// README.md "MCP servers": notifications/tools/list_changed updates the catalog and so /tools and its digest.
func TestListChangedMovesTheCatalogDigest(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{"g": testServer(t, nil)}, nil), Options{})
	requireConnected(t, p, "g")
	digest := func() (string, []string) {
		reg := tools.NewRegistry()
		for _, tl := range p.Tools() {
			reg.Register(tl)
		}
		cat := catalog.Build(reg, p.Info(), catalog.Options{Mode: posture.Act, Posture: posture.FullAccess})
		req := cat.RequestTools()
		d, _ := engine.ActiveToolCatalogSHA256(req)
		var names []string
		for _, t := range req {
			names = append(names, t.Name)
		}
		return d, names
	}
	before, names := digest()
	changed := p.Changed()
	if _, err := call(t, context.Background(), findTool(t, p, "mcp_g_grow"), `{}`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		if _, ok := p.Info().Servers["mcp_g_grown"]; ok {
			break
		}
		select {
		case <-changed:
			changed = p.Changed()
		case <-ctx.Done():
			t.Fatal("mcp_g_grown never appeared")
		}
	}
	after, newNames := digest()
	if after == before || !strings.Contains(strings.Join(newNames, ","), "mcp_g_grown") {
		t.Errorf("digest %s -> %s; tools %v -> %v", before, after, names, newNames)
	}
}

// CONTRACT.md §4.7: a degraded server keeps its last tools while the supervisor reconnects
// it, so a turn's Start does not wait for that reconnect (it may hang
// until the connect timeout); it waits only for servers connecting for
// the first time.
func TestStartDoesNotWaitForAReconnect(t *testing.T) {
	t.Parallel()
	mark := filepath.Join(t.TempDir(), "dead")
	p := startPool(t, writeConfig(t, map[string]any{
		"mortal": testServer(t, map[string]string{"MCP_TEST_DEAD_MARK": mark, "MCP_TEST_HANG_AGAIN": "1"}),
	}, map[string]any{"timeouts": map[string]any{"connect_timeout": 5}}), Options{})
	requireConnected(t, p, "mortal")
	if _, err := call(t, context.Background(), findTool(t, p, "mcp_mortal_die"), `{}`); err == nil {
		t.Fatal("die succeeded")
	}
	st := waitState(t, p, "mortal", StateConnecting) // the first reconnect, hanging
	if !st.Degraded || st.Reconnect != 1 {
		t.Fatalf("reconnecting: %+v", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	start := time.Now()
	p.Start(ctx)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Start waited %s for a degraded server's reconnect", took)
	}
	if findTool(t, p, "mcp_mortal_die") == nil {
		t.Error("the degraded server's tools are gone while it reconnects")
	}
}
