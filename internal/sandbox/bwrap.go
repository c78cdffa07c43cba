package sandbox

import (
	"os/exec"
)

// wrapBwrap rewrites cmd to run under bubblewrap: the whole filesystem
// bound read-only, a minimal /dev, the writable roots bound writable, the
// protected paths bound read-only over them (and writable roots inside
// those bound again), and with the network denied an empty network
// namespace. The command gets its own pid namespace and /proc: through the
// agent's /proc/<pid>/root a command would otherwise see the file system
// without the read-only mounts. --die-with-parent ties the command to bwrap,
// which Start ties to the agent. Every capability is dropped (bwrap keeps
// them for root), so a command cannot unmount what protects .git. With the
// network denied, bwrap installs the filter that refuses unix sockets
// (sockets_linux.go), read from a pipe appended to cmd.ExtraFiles.
func wrapBwrap(cmd *exec.Cmd, bwrap string, p Policy) error {
	args := bwrapArgs(p.resolve(), bwrapReads(p), !p.Network, cmd.Dir)
	if !p.Network {
		filter, err := bwrapSocketFilter(cmd)
		if err != nil {
			return err
		}
		args = append(args, filter...)
	}
	path := cmd.Path
	cmd.Args = append(append(append([]string{bwrap}, args...), "--", path), cmd.Args[1:]...)
	cmd.Path = bwrap
	return nil
}

// bwrapArgs starts with reads (bwrapReads: the whole file system bound
// read-only, or a read allow-list's grants) beneath everything else.
func bwrapArgs(l layout, reads []string, noNet bool, dir string) []string {
	args := append([]string{"--die-with-parent", "--cap-drop", "ALL", "--unshare-pid"}, reads...)
	args = append(args, "--dev", "/dev", "--proc", "/proc")
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
