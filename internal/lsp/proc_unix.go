//go:build unix

package lsp

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own: the terminal's
// Ctrl+C does not reach it, and killGroup ends the programs it starts
// (gopls's go list, tsserver, pyright's workers) with it.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills p's process group.
func killGroup(p *os.Process) {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		_ = p.Kill()
	}
}
