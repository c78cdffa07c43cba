package tasks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// CONTRACT.md §5: a task gate's `cwd` goes through the workspace boundary with links resolved: a link to a
// directory outside is a PathEscape naming where it leads.
func TestContract5GateCwdThroughALinkIsChecked(t *testing.T) {
	t.Parallel()
	ws, outside := tools.Canonical(t.TempDir()), tools.Canonical(t.TempDir())
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, taskRegistry(Options{}), ws, "tasks", `{"action":"gate_run","gate":"fmt","command":"touch ran","cwd":"out"}`)
	if te := tools.AsError(err); err == nil || te.Kind != tools.KindPathEscape || te.Path != outside {
		t.Fatalf("err = %v; want a PathEscape naming %s", err, outside)
	}
	if _, err := os.Stat(filepath.Join(outside, "ran")); err == nil {
		t.Error("the gate ran outside the workspace")
	}
}
