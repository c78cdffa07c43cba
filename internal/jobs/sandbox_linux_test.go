package jobs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/testutil/sandboxtest"
)

// Jobs run under the manager's sandbox unless their spec names another; a
// refused write is explained in the snapshot.
func TestJobsRunUnderTheSandbox(t *testing.T) {
	t.Parallel()
	sb, ws, outside := sandboxtest.WorkspaceWrite(t, sandbox.Options{Helper: os.Args[0]})
	m := newTestManager(t, Options{Sandbox: sb})
	script := "echo in > inside.txt && echo out > " + filepath.Join(outside, "x")
	_, d := runIn(t, m, Spec{Command: script, Dir: ws})
	if d.Status != Failed || !d.Sandboxed || d.SandboxType == "none" {
		t.Fatalf("job %+v", d.Snapshot)
	}
	if d.Denial == nil || d.Denial.Path != filepath.Join(outside, "x") || d.Denial.Reason != "outside_writable_roots" {
		t.Fatalf("denial %+v for %q", d.Denial, d.Stderr.Content)
	}
	if _, err := os.Stat(filepath.Join(ws, "inside.txt")); err != nil {
		t.Fatalf("the write inside failed: %v", err)
	}
	// An explicit spec sandbox replaces the manager's: the user approved this
	// run outside it.
	_, d = runIn(t, m, Spec{Command: script, Dir: ws, Sandbox: sb.WithMode(sandbox.FullAccess)})
	if d.Status != Completed || d.Sandboxed || d.Denial != nil {
		t.Fatalf("unsandboxed run %+v %q", d.Snapshot, d.Stderr.Content)
	}
}

// Commands do not inherit the agent's secrets.
func TestJobEnvironmentIsScrubbed(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", "sk-agent-key")
	t.Setenv("GH_TOKEN", "gh-token")
	m := newTestManager(t, Options{Env: []string{"GIT_TERMINAL_PROMPT=0"},
		Sandbox: sandbox.New(sandbox.Policy{Mode: sandbox.FullAccess}, sandbox.Options{EnvPassthrough: []string{"GH_TOKEN"}})})
	_, d := runIn(t, m, Spec{Command: "env", Dir: t.TempDir(), Env: []string{"EXTRA=1"}})
	out := d.Stdout.Content
	if strings.Contains(out, "sk-agent-key") || !strings.Contains(out, "GH_TOKEN=gh-token") ||
		!strings.Contains(out, "GIT_TERMINAL_PROMPT=0") || !strings.Contains(out, "EXTRA=1") {
		t.Fatalf("child environment:\n%s", out)
	}
	// Without a sandbox the environment is scrubbed all the same.
	m = newTestManager(t, Options{})
	if _, d = runIn(t, m, Spec{Command: "env", Dir: t.TempDir()}); strings.Contains(d.Stdout.Content, "sk-agent-key") {
		t.Fatal("the key reached an unsandboxed child")
	}
}
