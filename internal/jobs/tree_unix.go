//go:build unix

package jobs

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// tree is a job's process group. The command leads a new session (so also a
// new group, and no controlling terminal: nothing it starts can read from
// or draw on the TUI's terminal); a kill signals the whole group.
type tree struct {
	pgid int
	cmd  *exec.Cmd
}

func newTree(cmd *exec.Cmd) *tree {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return &tree{cmd: cmd}
}

func (t *tree) started(p *os.Process) error {
	t.pgid = p.Pid
	return nil
}

func (t *tree) terminate() { t.signal(syscall.SIGTERM) }
func (t *tree) kill()      { t.signal(syscall.SIGKILL) }
func (t *tree) release()   {}

func (t *tree) signal(sig syscall.Signal) {
	if err := syscall.Kill(-t.pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		_ = t.cmd.Process.Signal(sig)
	}
}

func (t *tree) alive() bool { return syscall.Kill(-t.pgid, 0) == nil }

// shellArgs runs command with a POSIX shell.
func shellArgs(_, command string) []string { return []string{"-c", command} }

const defaultShell = "/bin/sh"
