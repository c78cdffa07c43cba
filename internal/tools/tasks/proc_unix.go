//go:build unix

package tasks

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the command in a new process group so a timeout can stop
// everything it started, not just the shell.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
