package mcp

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a small stdio MCP server (a real subprocess)
// for behaviour the npm servers cannot produce on demand: chosen tool names,
// a tool that never answers, huge and multi-part error results.
//
// MCP_TEST_SERVER=1 runs it; MCP_TEST_TOOLS is a comma-separated list of
// extra tool names that answer "called <name>"; MCP_TEST_HANG=1 makes it
// never answer initialize; MCP_TEST_START_DELAY (a Go duration) makes it
// slow to start without using CPU, like a server waiting on a network.

func TestMain(m *testing.M) {
	if os.Getenv("MCP_TEST_SERVER") == "1" {
		runTestServer()
		return
	}
	os.Exit(m.Run())
}

// testServer is a config entry that runs this test binary as a server.
func testServer(t testing.TB, env map[string]string) map[string]any {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{"MCP_TEST_SERVER": "1"}
	for k, v := range env {
		e[k] = v
	}
	return map[string]any{"command": exe, "env": e}
}

func runTestServer() {
	if os.Getenv("MCP_TEST_HANG") == "1" {
		select {} // read nothing, answer nothing
	}
	if d, err := time.ParseDuration(os.Getenv("MCP_TEST_START_DELAY")); err == nil {
		time.Sleep(d)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "codewhale-test-server", Version: "1"}, nil)
	addEnvTool(s)
	obj := map[string]any{"type": "object"}
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	for _, name := range strings.Split(os.Getenv("MCP_TEST_TOOLS"), ",") {
		if name = strings.TrimSpace(name); name != "" {
			s.AddTool(&sdk.Tool{Name: name, InputSchema: obj}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return text("called " + name), nil
			})
		}
	}
	s.AddTool(&sdk.Tool{Name: "hang", Description: "never answers until cancelled", InputSchema: obj},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.AddTool(&sdk.Tool{Name: "huge", InputSchema: obj}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text(strings.Repeat("é", 150<<10)), nil
	})
	s.AddTool(&sdk.Tool{Name: "fail", InputSchema: obj}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{
			&sdk.TextContent{Text: "first problem"}, &sdk.TextContent{Text: "second problem"}}}, nil
	})
	s.AddTool(&sdk.Tool{Name: "grow", Description: "adds the tool 'grown'", InputSchema: obj},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			s.AddTool(&sdk.Tool{Name: "grown", InputSchema: obj}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return text("grown"), nil
			})
			return text("added"), nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "test server:", err)
		os.Exit(1)
	}
}
