package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/tools"
)

// Integration tests against @modelcontextprotocol/server-everything over
// stdio (installed by scripts/install-mcp-servers.sh).

func findTool(t *testing.T, p *Pool, name string) tools.Tool {
	t.Helper()
	for _, tl := range p.Tools() {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("tool %q not offered; have %v", name, toolNames(p))
	return nil
}

func toolNames(p *Pool) []string {
	var out []string
	for _, tl := range p.Tools() {
		out = append(out, tl.Name())
	}
	return out
}

func call(t *testing.T, ctx context.Context, tl tools.Tool, in string) (tools.Result, error) {
	t.Helper()
	return tl.Execute(ctx, &tools.Context{}, json.RawMessage(in))
}

func TestEverythingStdioListsAndCalls(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{"everything": everythingServer(t)}, nil), Options{})
	st := requireConnected(t, p, "everything")
	if st.PID == 0 || st.Transport != TransportStdio {
		t.Errorf("status = %+v, want a stdio server with a pid", st)
	}
	for _, want := range []string{"mcp_everything_echo", "mcp_everything_get-sum", "mcp_everything_trigger-long-running-operation"} {
		if _, ok := p.Info().Servers[want]; !ok {
			t.Errorf("Info() lacks %s; got %v", want, p.Info().Servers)
		}
	}
	echo := findTool(t, p, "mcp_everything_echo")
	if echo.Description() == "" || echo.Description() == echo.Name() {
		t.Errorf("echo description = %q, want the server's own", echo.Description())
	}
	if c, err := tools.PrepareCall(echo, json.RawMessage(`{"message":"x"}`)); err != nil || c.Policy.Approval != tools.Required || c.Policy.ReadOnly || !echo.DeferLoading() {
		t.Errorf("echo policy: %+v %v deferred %v", c, err, echo.DeferLoading())
	}
	cases := []struct {
		tool, in, want string
	}{
		{"mcp_everything_echo", `{"message":"hi from go"}`, `Echo: hi from go`},
		{"mcp_everything_get-sum", `{"a":2,"b":3}`, `The sum of 2 and 3 is 5.`},
	}
	for _, c := range cases {
		res, err := call(t, context.Background(), findTool(t, p, c.tool), c.in)
		if err != nil || !res.Success {
			t.Fatalf("%s: result %+v, err %v", c.tool, res, err)
		}
		var payload struct {
			Content []struct{ Type, Text string } `json:"content"`
		}
		if err := json.Unmarshal([]byte(res.Content), &payload); err != nil {
			t.Fatalf("%s: result is not compact JSON: %v\n%s", c.tool, err, res.Content)
		}
		if len(payload.Content) == 0 || payload.Content[0].Text != c.want {
			t.Errorf("%s: content = %s, want text %q", c.tool, res.Content, c.want)
		}
		if strings.Contains(res.Content, "\n") {
			t.Errorf("%s: result is not compact: %q", c.tool, res.Content)
		}
	}
}

func TestEverythingImageAndStructuredContent(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{"everything": everythingServer(t)}, nil), Options{})
	requireConnected(t, p, "everything")

	img, err := call(t, context.Background(), findTool(t, p, "mcp_everything_get-tiny-image"), `{}`)
	if err != nil || !img.Success {
		t.Fatalf("get-tiny-image: %+v, %v", img, err)
	}
	if !strings.Contains(img.Content, `[image omitted (image/png, `) || strings.Contains(img.Content, "iVBOR") {
		t.Errorf("image must become a note without base64: %s", img.Content)
	}
	if img.Metadata["binary_items_omitted"] != 1 {
		t.Errorf("metadata = %v, want one binary item omitted", img.Metadata)
	}

	sc, err := call(t, context.Background(), findTool(t, p, "mcp_everything_get-structured-content"), `{"location":"Chicago"}`)
	if err != nil || !sc.Success {
		t.Fatalf("get-structured-content: %+v, %v", sc, err)
	}
	if !strings.Contains(sc.Content, `"structuredContent":{"conditions":"Light rain / drizzle","humidity":82,"temperature":36}`) {
		t.Errorf("structured content missing: %s", sc.Content)
	}
}

// Cancelling the caller's context returns Cancelled at once and sends
// notifications/cancelled for the request.
func TestEverythingLongRunningCancelled(t *testing.T) {
	t.Parallel()
	trace := newTrace()
	p := startPool(t, writeConfig(t, map[string]any{"everything": everythingServer(t)}, nil), Options{Trace: trace})
	requireConnected(t, p, "everything")
	long := findTool(t, p, "mcp_everything_trigger-long-running-operation")

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		wait, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		trace.waitFor(wait, `"method":"tools/call"`, `trigger-long-running-operation`)
		cancel()
	}()
	_, err := call(t, ctx, long, `{"duration":30,"steps":30}`)
	var te *tools.Error
	if !errors.As(err, &te) || te.Kind != tools.KindCancelled {
		t.Fatalf("err = %v, want Cancelled", err)
	}
	wait, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	defer func() {
		if t.Failed() {
			t.Logf("trace:\n%s", trace)
		}
	}()
	if !trace.waitFor(wait, `"method":"notifications/cancelled"`) {
		t.Fatalf("no notifications/cancelled was sent; trace:\n%s", trace)
	}
	// The session survives a cancelled call.
	res, err := call(t, context.Background(), findTool(t, p, "mcp_everything_echo"), `{"message":"still here"}`)
	if err != nil || !strings.Contains(res.Content, "Echo: still here") {
		t.Fatalf("echo after cancel: %+v, %v", res, err)
	}
}

// A server killed mid-call fails the call with a clear error and is marked
// degraded: its last good tools stay in the catalog (so it does not churn),
// calls say it is reconnecting, and the supervisor brings it back; Reload
// restarts it too.
func TestEverythingKilledMidCallThenReconnects(t *testing.T) {
	t.Parallel()
	trace := newTrace()
	path := writeConfig(t, map[string]any{"everything": everythingServer(t)}, nil)
	p := startPool(t, path, Options{Trace: trace})
	st := requireConnected(t, p, "everything")
	long := findTool(t, p, "mcp_everything_trigger-long-running-operation")
	before := len(p.Tools())

	go func() {
		wait, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		trace.waitFor(wait, `trigger-long-running-operation","arguments"`)
		if proc, err := os.FindProcess(st.PID); err == nil {
			_ = proc.Kill() // SIGKILL on unix, TerminateProcess on Windows
		}
	}()
	_, err := call(t, context.Background(), long, `{"duration":30,"steps":30}`)
	var te *tools.Error
	if !errors.As(err, &te) || te.Kind != tools.KindExecutionFailed ||
		!strings.HasPrefix(te.Msg, "MCP tool failed: server 'everything' stopped during the call") {
		t.Fatalf("err = %v, want ExecutionFailed naming the stopped server", err)
	}
	if st := mustStatus(t, p, "everything"); st.State != StateDegraded || !st.Degraded || st.Error == "" {
		t.Fatalf("after kill: state %s degraded %v error %q, want degraded with a reason", st.State, st.Degraded, st.Error)
	}
	if len(p.Tools()) != before {
		t.Fatalf("a degraded server keeps its last good tools: %d, was %d", len(p.Tools()), before)
	}
	_, err = call(t, context.Background(), long, `{"message":"x"}`)
	if !errors.As(err, &te) || !strings.Contains(te.Msg, "MCP server 'everything' is degraded") ||
		!strings.Contains(te.Msg, "reconnecting (attempt 1 of 3)") {
		t.Fatalf("call on a degraded server: %v", err)
	}
	waitState(t, p, "everything", StateConnected)
	res, err := call(t, context.Background(), findTool(t, p, "mcp_everything_echo"), `{"message":"back"}`)
	if err != nil || !strings.Contains(res.Content, "Echo: back") {
		t.Fatalf("echo after the reconnect: %+v, %v", res, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Reload(ctx, "everything"); err != nil {
		t.Fatal(err)
	}
	requireConnected(t, p, "everything")
	res, err = call(t, context.Background(), findTool(t, p, "mcp_everything_echo"), `{"message":"back"}`)
	if err != nil || !strings.Contains(res.Content, "Echo: back") {
		t.Fatalf("echo after reload: %+v, %v", res, err)
	}
}

// waitState waits up to 20s for server name to reach state.
func waitState(t *testing.T, p *Pool, name string, want State) Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		changed := p.Changed()
		st := mustStatus(t, p, name)
		if st.State == want {
			return st
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("server %q: state %s (error %q), want %s", name, st.State, st.Error, want)
		}
	}
}

// TestEverythingResultIsCutToTheBudget: a server's long answer reaches the
// model as valid JSON within the call's budget, with a receipt.
func TestEverythingResultIsCutToTheBudget(t *testing.T) {
	t.Parallel()
	p := startPool(t, writeConfig(t, map[string]any{"everything": everythingServer(t)}, nil), Options{})
	requireConnected(t, p, "everything")
	in, _ := json.Marshal(map[string]string{"message": strings.Repeat("long answer ", 10000)})
	res, err := findTool(t, p, "mcp_everything_echo").Execute(context.Background(), &tools.Context{Budget: 12000}, in)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Truncation struct{ Note string } `json:"truncation"`
	}
	if n := len([]rune(res.Content)); n > 12000 || json.Unmarshal([]byte(res.Content), &v) != nil ||
		!strings.Contains(v.Truncation.Note, "result budget") {
		t.Fatalf("%d chars: %.300s", n, res.Content)
	}
}
