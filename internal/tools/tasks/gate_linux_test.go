package tasks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/testutil/sandboxtest"
	"github.com/codewhale/codewhale/internal/tools"
)

// A gate command runs under the call's sandbox: it cannot write outside the
// workspace, and the record says why it failed.
func TestGateRunsUnderTheSandbox(t *testing.T) {
	t.Parallel()
	sb, ws, outside := sandboxtest.WorkspaceWrite(t, sandbox.Options{})
	store, _ := openStore(t, t.TempDir())
	reg := taskRegistry(Options{Store: store})
	in, _ := json.Marshal(map[string]any{"action": "gate_run", "gate": "custom", "command": "echo x > " + filepath.Join(outside, "f")})
	res, err := reg.Execute(context.Background(), &tools.Context{Workspace: ws, Sandbox: sb}, "tasks", in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Success || !strings.Contains(res.Content, "[sandbox] The sandbox (workspace-write") ||
		!strings.Contains(res.Content, filepath.Join(outside, "f")) {
		t.Fatalf("gate result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
		t.Fatal("the gate wrote outside the workspace")
	}
}
