package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/handles"
)

// call runs one Web call the way the engine does: normalise, validate
// against the published schema, decide approval, execute.
func call(t *testing.T, tool *Tool, in string) (tools.Result, tools.Approval, error) {
	t.Helper()
	reg := tools.NewRegistry()
	reg.Register(tool)
	c, err := reg.Prepare(ToolName, json.RawMessage(in))
	if err != nil {
		return tools.Result{}, tools.Auto, err
	}
	approval := c.Policy.Approval
	res, err := c.Run(context.Background(), &tools.Context{Workspace: t.TempDir()})
	return res, approval, err
}

// loopbackAllowed is the policy for tests whose servers are httptest ones
// on 127.0.0.1: the person's own dev servers in [network] allow_private,
// so the private-address rule is not what is under test.
func loopbackAllowed() *netpolicy.Policy {
	return &netpolicy.Policy{AllowPrivate: []string{"127.0.0.1"}}
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

func decode[T any](t *testing.T, res tools.Result) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(res.Content), &v); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, res.Content)
	}
	return v
}

func mustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("missing %q in:\n%s", sub, s)
		}
	}
}

func mustNotContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			t.Errorf("unexpected %q in:\n%s", sub, s)
		}
	}
}

func newTool(p *netpolicy.Policy, sc SearchConfig) *Tool {
	return New(Options{Policy: p, Search: sc, Handles: handles.NewStore(0)})
}
