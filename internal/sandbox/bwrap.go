package sandbox

import (
	"os/exec"
)

// wrapBwrap rewrites cmd to run under bubblewrap: the whole filesystem
// bound read-only, a minimal /dev, the writable roots bound writable, the
// protected paths bound read-only over them (and writable roots inside
// those bound again), and with the network denied an empty network
// namespace. --die-with-parent ties the command to bwrap, which Start ties
// to the agent.
func wrapBwrap(cmd *exec.Cmd, bwrap string, p Policy) error {
	args := bwrapArgs(p.resolve(), !p.Network, cmd.Dir)
	path := cmd.Path
	cmd.Args = append(append(append([]string{bwrap}, args...), "--", path), cmd.Args[1:]...)
	cmd.Path = bwrap
	return nil
}

func bwrapArgs(l layout, noNet bool, dir string) []string {
	args := []string{"--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev"}
	for _, r := range l.rw {
		args = append(args, "--bind", r, r)
	}
	for _, r := range l.ro {
		args = append(args, "--ro-bind", r, r)
	}
	for _, r := range l.rwInRO {
		args = append(args, "--bind", r, r)
	}
	if noNet {
		args = append(args, "--unshare-net")
	}
	if dir != "" {
		args = append(args, "--chdir", dir)
	}
	return args
}
