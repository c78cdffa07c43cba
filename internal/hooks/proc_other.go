//go:build !unix

package hooks

import (
	"context"
	"os/exec"
)

// shellCommand runs command with cmd.exe; a timeout kills the process
// (processes it started may outlive it where there are no process groups).
func shellCommand(ctx context.Context, command string) *exec.Cmd {
	return exec.CommandContext(ctx, "cmd.exe", "/C", command)
}
