//go:build !unix

package tasks

import "os/exec"

// ownGroup falls back to killing the shell alone where process groups are
// not available.
func ownGroup(cmd *exec.Cmd) {}
