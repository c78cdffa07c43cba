package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

const initProposal = "# Demo\n\n## Build and test\n\n```sh\ngo test ./...\n```\n"

func initReply(body string) fakemodel.Reply {
	return fakemodel.Text("I read go.mod.\n\n<AGENTS.md>\n" + body + "</AGENTS.md>\n")
}

// codewhale init surveys in Plan mode with the read-only tools, prints the
// diff on stdout and writes only with --yes; --dry-run writes nothing;
// without a terminal and without either flag it refuses before any
// request.
// CONTRACT.md §17.6: codewhale init runs one Plan turn, prints the diff, and writes only on yes, --yes, never on
// --dry-run.
// README.md "Project instructions": codewhale init outside the TUI proposes and writes an AGENTS.md
// README.md "Command line": codewhale init asks, --yes writes, --dry-run only prints.
func TestInitCommand(t *testing.T) {
	t.Parallel()
	t.Run("yes writes after a Plan-mode survey", func(t *testing.T) {
		t.Parallel()
		srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "r", Name: "File", Args: `{"action":"read","path":"go.mod"}`}),
			initReply(initProposal))
		c := newCLI(t, srv)
		writeFiles(t, c.ws, map[string]string{"go.mod": "module demo\n", "AGENTS.md": "# Demo\n\nOld rule.\n"})
		out, errOut, code := c.run("init", "--yes")
		if code != 0 {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		if !strings.HasPrefix(out, "--- a/AGENTS.md\n+++ b/AGENTS.md\n") || !strings.Contains(out, "-Old rule.") ||
			!strings.Contains(out, "+go test ./...") {
			t.Errorf("stdout is not the diff:\n%s", out)
		}
		if !strings.Contains(errOut, "tool: File") || !strings.Contains(errOut, "Wrote "+filepath.Join(c.ws, "AGENTS.md")) {
			t.Errorf("stderr:\n%s", errOut)
		}
		if got, _ := os.ReadFile(filepath.Join(c.ws, "AGENTS.md")); string(got) != initProposal {
			t.Errorf("AGENTS.md = %q", got)
		}
		first := srv.Requests()[0]
		if names := strings.Join(first.ToolNames(), ","); strings.Contains(names, "Bash") || !strings.Contains(names, "File") {
			t.Errorf("the survey must be Plan mode with the read-only tools, got %s", names)
		}
		if got := first.LastUserText(); !strings.Contains(got, "improve it rather than replace it") || !strings.Contains(got, "Old rule.") {
			t.Errorf("the existing AGENTS.md was not handed to the model: %q", got)
		}
		if !srv.Requests()[1].HasToolResult("module demo") {
			t.Error("the File read did not run in the survey")
		}
	})
	t.Run("dry-run writes nothing", func(t *testing.T) {
		t.Parallel()
		srv := fakemodel.New(t, initReply(initProposal))
		c := newCLI(t, srv)
		out, errOut, code := c.run("init", "--dry-run", "--force")
		if code != 0 || !strings.HasPrefix(out, "--- /dev/null\n+++ b/AGENTS.md\n") || !strings.Contains(errOut, "Not written (--dry-run)") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		if _, err := os.Stat(filepath.Join(c.ws, "AGENTS.md")); err == nil {
			t.Error("--dry-run wrote AGENTS.md")
		}
	})
	t.Run("no terminal, no flag", func(t *testing.T) {
		t.Parallel()
		srv := fakemodel.New(t, initReply(initProposal))
		c := newCLI(t, srv)
		_, errOut, code := c.run("init")
		if code != 1 || !strings.Contains(errOut, "standard input is not a terminal; pass --yes") {
			t.Fatalf("exit %d\nstderr:\n%s", code, errOut)
		}
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("%d requests were sent before refusing", n)
		}
	})
	t.Run("an answer without a proposal", func(t *testing.T) {
		t.Parallel()
		srv := fakemodel.New(t, fakemodel.Text("It is a Go module."))
		c := newCLI(t, srv)
		writeFiles(t, c.ws, map[string]string{"AGENTS.md": "keep\n"})
		_, errOut, code := c.run("init", "--yes")
		if code != 1 || !strings.Contains(errOut, "has no <AGENTS.md>") {
			t.Fatalf("exit %d\nstderr:\n%s", code, errOut)
		}
		if got, _ := os.ReadFile(filepath.Join(c.ws, "AGENTS.md")); string(got) != "keep\n" {
			t.Errorf("AGENTS.md = %q", got)
		}
	})
}
