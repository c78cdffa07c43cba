package sandbox

import (
	"os/exec"
	"syscall"
)

// tieToParent makes the kernel kill the command when the thread that
// started it exits; Start keeps that thread until the command is reaped, so
// this means "when the agent dies".
func tieToParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
