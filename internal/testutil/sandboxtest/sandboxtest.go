// Package sandboxtest sets up the world the sandbox tests of other
// packages (jobs, the tasks gates) run in: a workspace, a folder beside it
// that the sandbox must keep writes out of, and a workspace-write sandbox
// over the workspace.
package sandboxtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// WorkspaceWrite makes ws and outside (siblings in a temp dir) and a
// workspace-write sandbox with the network on over ws. Without Landlock
// or bubblewrap the test is skipped (failed under CODEWHALE_REQUIRE_E2E).
func WorkspaceWrite(t testing.TB, opts sandbox.Options) (sb *sandbox.Sandbox, ws, outside string) {
	t.Helper()
	base := t.TempDir()
	ws, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sb = sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: ws, Network: true}, opts)
	if !sb.Status().Enforced {
		e2e.Missing(t, "neither Landlock nor bubblewrap is available")
	}
	return sb, ws, outside
}
