package bash

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// CONTRACT.md §5: Bash `cwd` goes through the workspace boundary with links resolved: a cwd that is a link to a
// directory outside the workspace is a PathEscape naming the directory it leads to, and nothing runs; a link
// that stays inside runs the command in the canonical directory.
func TestContract5CwdThroughALinkIsChecked(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	outside := tools.Canonical(t.TempDir())
	ws := f.tc.Workspace
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"out": outside, "in": filepath.Join(ws, "sub")} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(outside, "ran")
	if _, refusal := f.call(context.Background(), `{"command":"touch ran","cwd":"out"}`); refusal != "Path escapes workspace: "+outside+". Use a workspace-relative path or enable trust mode." {
		t.Errorf("cwd through a link out: %q", refusal)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran outside the workspace")
	}
	res := f.mustCall(`{"command":"pwd -P","cwd":"in"}`)
	if !strings.Contains(res.Content, filepath.Join(ws, "sub")) {
		t.Errorf("cwd through a link inside ran in %q, want %s", res.Content, filepath.Join(ws, "sub"))
	}
}
