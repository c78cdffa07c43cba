package jobs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/sandbox"
)

// spawnerSandbox is a workspace-write sandbox whose commands start through
// the user-namespace spawner (this test binary serves as the helper).
func spawnerSandbox(t *testing.T) (*sandbox.Sandbox, string) {
	t.Helper()
	requireUserNS(t)
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sb := sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: ws, Network: true,
		Protected: []string{filepath.Join(ws, ".git")}},
		sandbox.Options{Helper: os.Args[0], Probe: func() sandbox.Caps { return sandbox.Caps{LandlockABI: 1, UserNS: true} }})
	return sb, ws
}

// A job the spawner started is its child, not this process's: its exit
// status and signal still read exactly, and it really ran there.
func TestSpawnedJobsReportHowTheyEnded(t *testing.T) {
	t.Parallel()
	sb, ws := spawnerSandbox(t)
	m := newTestManager(t, Options{Sandbox: sb})
	_, d := runIn(t, m, Spec{Command: `tr '\0' ' ' < /proc/$PPID/cmdline`, Dir: ws})
	if d.Status != Completed || !strings.Contains(d.Stdout.Content, sandbox.HelperArg+" --spawner") {
		t.Fatalf("not run by the spawner: %+v %q", d.Snapshot, d.Stdout.Content)
	}
	_, d = runIn(t, m, Spec{Command: `exit 7`, Dir: ws})
	if d.Status != Failed || d.ExitCode == nil || *d.ExitCode != 7 || d.Signaled {
		t.Fatalf("exit 7: %+v", d.Snapshot)
	}
	_, d = runIn(t, m, Spec{Command: `kill -KILL $$`, Dir: ws})
	if d.Status != Failed || d.ExitCode != nil || !d.Signaled {
		t.Fatalf("killed: %+v", d.Snapshot)
	}
}

// Stopping a job the spawner started takes its whole process group, as
// for any other job: the agent signals the group directly.
func TestStoppedSpawnedJobsLeaveNoOrphans(t *testing.T) {
	t.Parallel()
	sb, ws := spawnerSandbox(t)
	m := newTestManager(t, Options{Sandbox: sb})
	for _, spec := range []Spec{
		{Command: "sleep 300 & echo $!; wait", Timeout: 300 * time.Millisecond},
		{Command: "trap '' TERM; sleep 300 & echo $!; wait"},
	} {
		spec.Dir = ws
		j, err := m.Start(spec)
		if err != nil {
			t.Fatal(err)
		}
		pid := firstPID(t, m, j)
		if spec.Timeout == 0 {
			go func() { _, _, _ = m.Cancel(j.ID()) }()
		}
		m.Await(context.Background(), j)
		if s := j.Status(); s != TimedOut && s != Killed {
			t.Fatalf("%q: status %s", spec.Command, s)
		}
		if !exitsWithin(pid, 5*time.Second) {
			t.Fatalf("%q: background child %d outlived its job", spec.Command, pid)
		}
	}
}
