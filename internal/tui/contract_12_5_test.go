package tui

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/mcp"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/tui/services"
)

// contractPool starts a pool reading servers (and the workspace's .mcp.json
// when pr names one).
func contractPool(t *testing.T, servers map[string]any, pr mcp.Project) *mcp.Pool {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"servers": servers})
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	p := mcp.NewPool(path, mcp.Options{Project: pr, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { _ = p.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p.Start(ctx)
	return p
}

// CONTRACT.md §12.5: a "lazy" server is not connected at start; an
// @<server>:<uri> mention naming it connects it and reads the resource.
func TestContractLazyServerConnectsOnMention(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPServerBin(t, "mcp-server-everything")
	p := contractPool(t, map[string]any{"everything": map[string]any{"command": "node", "args": []string{bin, "stdio"}, "startup": "lazy"}}, mcp.Project{})
	if st, _ := p.Status("everything"); st.State != mcp.StatePending {
		t.Fatalf("lazy server after Start: %s", st.State)
	}
	d := newDirect(t, 140, 24, func(o *Options) { o.MCP = p })
	uri := "demo://resource/static/document/architecture.md"
	line := "summarise @everything:" + uri
	msg := runFor[services.SendMsg](t, d, d.submit(line))
	if msg.Err() != nil {
		t.Fatal(msg.Err())
	}
	if op, ok := d.eng.lastOp().(engine.SendMessage); !ok || !strings.Contains(op.Content, `<mcp_resource server="everything" uri="`+uri+`"`) {
		t.Fatalf("sent %#v", d.eng.lastOp())
	}
	if st, _ := p.Status("everything"); st.State != mcp.StateConnected {
		t.Errorf("after the mention: %s %s", st.State, st.Error)
	}
}

// CONTRACT.md §12.5: `/mcp trust` records the workspace's .mcp.json and
// starts its servers.
func TestContractMCPTrustStartsProjectServers(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPServerBin(t, "mcp-server-everything")
	ws := t.TempDir()
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": map[string]any{"command": "node", "args": []string{bin, "stdio"}}}})
	if err := os.WriteFile(filepath.Join(ws, mcp.ProjectFileName), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	p := contractPool(t, map[string]any{}, mcp.Project{Workspace: ws, Home: t.TempDir()})
	if st, _ := p.Status("proj"); st.State != mcp.StateConfigError || !strings.Contains(st.Error, "which is not trusted yet") {
		t.Fatalf("before /mcp trust: %+v", st)
	}
	d := newDirect(t, 160, 40, func(o *Options) { o.MCP = p })
	runFor[services.NoteMsg](t, d, d.submit("/mcp trust"))
	d.mustShow("Trusted " + filepath.Join(ws, mcp.ProjectFileName))
	if st, _ := p.Status("proj"); st.State != mcp.StateConnected {
		t.Errorf("after /mcp trust: %s %s", st.State, st.Error)
	}
}
