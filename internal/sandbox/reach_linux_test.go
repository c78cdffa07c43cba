package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// reachScript tries the ptrace-mode ways into the process that started
// the command ($S: the agent, or the spawner) and the agent ($A) that
// would hand it that process: each task's working directory link and
// memory and environment (the thread that started the command waits in
// the command's own Landlock domain), and pidfd_getfd on the first
// descriptors. It prints what it reached. Run as root, a command read the
// agent's environment while it kept CAP_SYS_ADMIN (limitCommandCapabilities).
const reachScript = `for p in $A $S; do
	for d in /proc/$p /proc/$p/task/*; do
		readlink "$d/cwd" >/dev/null 2>&1 && echo "reached $d/cwd"
		dd if="$d/mem" bs=1 count=0 2>/dev/null && echo "opened $d/mem"
		cat "$d/environ" >/dev/null 2>&1 && echo "read $d/environ"
	done
done
python3 - <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for pid in {int(os.environ["A"]), int(os.environ["S"])}:
    try:
        pfd = os.pidfd_open(pid)
    except ProcessLookupError:
        continue
    for fd in range(16):
        if libc.syscall(438, pfd, fd, 0) >= 0 or ctypes.get_errno() != 1:
            print("pidfd_getfd", pid, fd, "errno", ctypes.get_errno())
print("done")
PY`

// No confined command can reach into the process that started it or the
// agent: not through the thread that waits for it in its own Landlock
// domain (made non-dumpable, and out of reach of the command's
// capabilities: guardStarter, dropInheritedCapabilities), nor by
// pidfd_getfd. Not parallel: a user-namespace start makes this test
// process dumpable again, which only a process that builds both kinds of
// sandbox does.
// README.md "Sandbox": a command cannot reach into the process that started it.
func TestCommandsCannotReachTheirStarter(t *testing.T) {
	for _, v := range variants(t) {
		if v.caps.Bwrap != "" {
			continue // its own pid namespace: neither process is visible
		}
		t.Run(v.name, func(t *testing.T) {
			w := newWorld(t)
			sb := New(w.policy(WorkspaceWrite, true), v.options())
			for range 3 {
				out, _ := run(t, sb, w.ws, `S=$PPID; export S; `+reachScript, "A="+strconv.Itoa(os.Getpid()))
				if out != "done" {
					t.Fatalf("a command reached its starter:\n%s", out)
				}
			}
		})
	}
}

// The agent stays able to read its own /proc entries (it is non-dumpable
// once a thread has started a confined command).
func TestAgentReadsItsOwnProc(t *testing.T) {
	w := newWorld(t)
	sb := New(w.policy(WorkspaceWrite, true), Options{})
	if !sb.Status().Enforced {
		e2e.Missing(t, "neither Landlock nor bubblewrap is available")
	}
	run(t, sb, w.ws, `true`)
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil || !strings.Contains(string(raw), "Name:") {
		t.Fatalf("/proc/self/status: %v", err)
	}
}
