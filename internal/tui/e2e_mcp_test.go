package tui_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// /mcp in the real binary lists server-everything connected with the
// negotiated protocol and its prompts; one of them runs as a slash command
// and its text reaches the model.
func TestE2EMCPCommandAndPromptAsSlashCommand(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPServerBin(t, "mcp-server-everything")
	home := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"servers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{bin, "stdio"}},
	}})
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := fakemodel.New(t, fakemodel.Text("Prompt received."))
	p := startTUIAt(t, srv, home, t.TempDir())
	p.line("/mcp")
	p.waitFor("everything  stdio  connected  protocol 2025-11-25", "7 resources (+2 templates) · 4 prompts",
		"/mcp:everything:args-prompt <city> [state]")
	p.keys("-l", "/mcp:everything:si")
	p.waitFor("/mcp:everything:simple-prompt")
	p.keys("Tab")
	p.keys("Enter")
	p.waitFor("Prompt received.", "✓ done")
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].LastUserText(), "simple prompt") {
		t.Fatalf("the prompt did not reach the model: %d requests\n%s", len(reqs), reqs[0].Raw)
	}
}
