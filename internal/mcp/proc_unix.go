//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// detach puts a stdio server in its own process group, so a terminal's
// Ctrl+C reaches codewhale (which cancels calls) and not the servers, and so
// the whole group can be ended when the server is stopped.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup ends whatever is left of a stopped server's process group (an
// `npx` wrapper's node child, say). The leader has been reaped by then, so
// only the group id is signalled.
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}
