package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// CONTRACT.md §5: a Run custom gate's `cwd` goes through the workspace boundary with links resolved: a link to a
// directory outside is a PathEscape naming where it leads, and no gate runs.
func TestContract5CustomGateCwdThroughALinkIsChecked(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, map[string]string{"README.md": "x\n"})
	outside := tools.Canonical(t.TempDir())
	if err := os.Symlink(outside, filepath.Join(f.tc.Workspace, "out")); err != nil {
		t.Fatal(err)
	}
	_, refusal := f.call(`{"action":"verifiers","commands":[{"name":"n","program":"touch","args":["ran"],"cwd":"out"}]}`)
	if want := "Path escapes workspace: " + outside + ". Use a workspace-relative path or enable trust mode."; refusal != want {
		t.Errorf("cwd through a link out: %q, want %q", refusal, want)
	}
	if _, err := os.Stat(filepath.Join(outside, "ran")); err == nil {
		t.Error("the gate ran outside the workspace")
	}
}
