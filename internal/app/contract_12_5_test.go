package app

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
	"github.com/codewhale/codewhale/internal/tools"
)

// CONTRACT.md §12.5: servers connect in the background; the first turn
// waits for them, at most their connect timeout: a server that never
// answers costs the turn its connect_timeout, and the one that answers
// contributes its tools to that first turn.
func TestContractFirstTurnWaitsAtMostTheConnectTimeout(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPServerBin(t, "mcp-server-everything")
	doc, _ := json.Marshal(map[string]any{"servers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{bin, "stdio"}},
		"hung":       map[string]any{"command": "sh", "args": []string{"-c", "sleep 60"}, "connect_timeout": 1},
	}})
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	pool := mcp.NewPool(path, mcp.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { _ = pool.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := &App{MCP: pool, ctx: ctx}
	go pool.Start(ctx) // as New does
	start := time.Now()
	reg := tools.NewRegistry()
	a.registerMCP(reg, engine.TurnEnv{})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the first turn waited %s", d)
	}
	if !reg.Contains("mcp_everything_echo") {
		t.Errorf("the first turn lacks the connected server's tools: %v", reg.Names())
	}
	if st, _ := pool.Status("hung"); st.State != mcp.StateFailed || !strings.Contains(st.Error, "connect timeout (1s)") {
		t.Errorf("hung: %s %s", st.State, st.Error)
	}
}
