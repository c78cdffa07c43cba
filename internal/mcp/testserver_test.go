package mcp

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// testServerOptions: MCP_TEST_INSTRUCTIONS sets the initialize instructions
// ("huge" sends 100 KB); MCP_TEST_LIAR=1 advertises resources and prompts.
func testServerOptions() *sdk.ServerOptions {
	o := &sdk.ServerOptions{Instructions: os.Getenv("MCP_TEST_INSTRUCTIONS")}
	if o.Instructions == "huge" {
		o.Instructions = strings.Repeat("use the tools wisely. ", 5000)
	}
	if os.Getenv("MCP_TEST_LIAR") == "1" {
		o.Capabilities = &sdk.ServerCapabilities{Resources: &sdk.ResourceCapabilities{}, Prompts: &sdk.PromptCapabilities{}}
	}
	return o
}

// addTestResources (MCP_TEST_RESOURCES=1) adds a text, a blob, a 50 MB
// resource whose listing gives no size, one whose listing says 50 MB, one
// that kills the server while it is read, and a prompt.
func addTestResources(s *sdk.Server) {
	text := func(uri, body string) sdk.ResourceHandler {
		return func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: body}}}, nil
		}
	}
	s.AddResource(&sdk.Resource{URI: "test://small", Name: "small", MIMEType: "text/plain"}, text("test://small", "hello from a resource"))
	s.AddResource(&sdk.Resource{URI: "test://blob", Name: "blob", MIMEType: "image/png"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "test://blob", MIMEType: "image/png", Blob: make([]byte, 1234)}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "test://huge", Name: "huge"}, text("test://huge", strings.Repeat("x", 50<<20)))
	s.AddResource(&sdk.Resource{URI: "test://huge-listed", Name: "huge-listed", Size: 50 << 20}, text("test://huge-listed", "never read"))
	s.AddResource(&sdk.Resource{URI: "test://die", Name: "die"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			os.Exit(3)
			return nil, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "greet", Description: "greets someone", Arguments: []*sdk.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Say hello to " + req.Params.Arguments["who"]}}}}, nil
		})
}

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
	if f := os.Getenv("MCP_TEST_DEAD_MARK"); f != "" {
		if _, err := os.Stat(f); err == nil {
			if os.Getenv("MCP_TEST_HANG_AGAIN") == "1" {
				select {} // died before: starts again but never answers
			}
			os.Exit(4) // died before: never starts again
		}
	}
	if d, err := time.ParseDuration(os.Getenv("MCP_TEST_START_DELAY")); err == nil {
		time.Sleep(d)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "codewhale-test-server", Version: "1"}, testServerOptions())
	addEnvTool(s)
	obj := map[string]any{"type": "object"}
	if os.Getenv("MCP_TEST_RESOURCES") == "1" {
		addTestResources(s)
	}
	if os.Getenv("MCP_TEST_LIAR") == "1" {
		// Advertises resources and prompts, then serves neither.
		s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
			return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
				if strings.HasPrefix(method, "resources/") || strings.HasPrefix(method, "prompts/") {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + method}
				}
				return next(ctx, method, req)
			}
		})
	}
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
	s.AddTool(&sdk.Tool{Name: "die", Description: "exits the server mid-call", InputSchema: obj},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if f := os.Getenv("MCP_TEST_DEAD_MARK"); f != "" {
				_ = os.WriteFile(f, nil, 0o600)
			}
			os.Exit(3)
			return nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "test server:", err)
		os.Exit(1)
	}
}
