//go:build !unix

package lsp

import (
	"os"
	"os/exec"
)

// ownGroup leaves cmd as it is: without process groups only the server
// itself is killed.
func ownGroup(*exec.Cmd) {}

// killGroup kills p.
func killGroup(p *os.Process) { _ = p.Kill() }
