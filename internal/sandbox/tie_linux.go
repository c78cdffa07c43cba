package sandbox

import (
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
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

// goLocked runs fn on a new goroutine locked to an OS thread that is not
// the process's main thread; fn may leave it locked (tainted). The main
// thread stands for the whole process wherever the kernel checks
// ptrace-mode access to /proc/<pid> or a pidfd: confined for a command, it
// would let that command reach the agent itself. A goroutine that lands on
// it hands fn to another one, keeping it locked until that one has locked
// its own thread, so the other cannot land on it too.
func goLocked(fn func()) {
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() != unix.Getpid() {
			fn()
			return
		}
		moved := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(moved)
			fn()
		}()
		<-moved
		runtime.UnlockOSThread()
	}()
}
