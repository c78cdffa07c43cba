package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// A hook that hangs is killed at its timeout — with what it started — and
// reported; the call goes on.
// CONTRACT.md §17.4: at its timeout the whole process group is killed and reported.
// README.md "Hooks": a hook that hangs is killed (with what it started) at its timeout and reported; the call goes on.
func TestAHangingHookIsKilledAtItsTimeout(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "child.pid")
	r, _ := runner(t, config.Hook{Name: "slow", Event: engine.HookToolBefore, TimeoutMS: 300,
		Command: "sleep 30 & echo $! > " + marker + "; wait"})
	start := time.Now()
	v := r.Run(context.Background(), engine.HookToolBefore, bashCall("ls"))
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
	if v.Block || len(v.Notices) != 1 || !strings.Contains(v.Notices[0], "Hook slow (tool_call_before, config.toml) timed out after 300ms and was killed") {
		t.Errorf("verdict %+v", v)
	}
	pid, _ := os.ReadFile(marker)
	if p := strings.TrimSpace(string(pid)); p == "" {
		t.Error("the hook did not start its child")
	} else if alive(p) {
		t.Errorf("the hook's child %s outlived the timeout", p)
	}
	if st, _ := r.List(); !strings.Contains(st[0].Last, "timed out after 300ms") || st[0].Runs != 1 {
		t.Errorf("last result %+v", st[0])
	}
}

// alive reports whether pid still runs 5 s after the hook returned. A
// SIGKILL is delivered asynchronously, so the check waits for the exit on a
// pidfd (readable once the process has exited) instead of looking once.
func alive(pid string) bool {
	n, err := strconv.Atoi(pid)
	if err != nil {
		return false
	}
	fd, err := unix.PidfdOpen(n, 0)
	if err != nil {
		return false // ESRCH: gone and reaped
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	ready, err := unix.Poll(fds, 5000)
	return err == nil && ready == 0
}

// Hooks run under the session's sandbox: a write outside the workspace is
// refused (the hook fails and is reported), one inside succeeds.
// CONTRACT.md §17.4: a hook runs under the session's sandbox.
// README.md "Hooks": a hook runs under the same sandbox as the agent's commands: a write outside the workspace is refused.
func TestHooksRunUnderTheSandbox(t *testing.T) {
	t.Parallel()
	ws, outside := t.TempDir(), t.TempDir()
	sb := sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: ws, Network: true}, sandbox.Options{})
	if st := sb.Status(); !st.Enforced {
		e2e.Missing(t, "no OS sandbox here: "+st.Reason)
	}
	r, err := New(Options{Use: Trusted, UserFile: "config.toml", Workspace: ws, Sandbox: sb, User: []config.Hook{
		{Name: "escape", Event: engine.HookToolBefore, Command: "touch " + filepath.Join(outside, "escaped")},
		{Name: "inside", Event: engine.HookToolBefore, Command: "touch " + filepath.Join(ws, "inside")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	v := r.Run(context.Background(), engine.HookToolBefore, bashCall("ls"))
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Error("a hook wrote outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(ws, "inside")); err != nil {
		t.Errorf("a hook could not write in the workspace: %v", err)
	}
	if len(v.Notices) != 1 || !strings.Contains(v.Notices[0], "Hook escape (tool_call_before, config.toml) failed (exit 1)") {
		t.Errorf("notices %q", v.Notices)
	}
}
