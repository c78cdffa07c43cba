package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// isolate gives the calling thread its own mount namespace in which the
// protected paths are read-only bind mounts, and with noNet its own empty
// network namespace. It needs CAP_SYS_ADMIN; without it the helper gets
// the same namespaces from a new user namespace (userns_linux.go).
func isolate(l layout, noNet bool) error {
	flags := unix.CLONE_NEWNS
	if noNet {
		flags |= unix.CLONE_NEWNET
	}
	if err := unix.Unshare(flags); err != nil {
		return fmt.Errorf("unshare: %w", err)
	}
	return bindLayout(l)
}

// bindLayout makes the protected paths of l read-only bind mounts in the
// caller's (private) mount namespace, binding the writable roots inside
// them first so they stay writable. Mounts are made slaves first so nothing
// propagates back to the agent's namespace.
func bindLayout(l layout) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	for _, p := range l.rwInRO {
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("binding %s: %w", p, err)
		}
	}
	for _, p := range l.ro {
		if err := bindReadOnly(p); err != nil {
			return err
		}
	}
	return nil
}

// bindReadOnly binds p onto itself and remounts that mount read-only,
// keeping the nosuid/nodev/noexec flags it had (statfs's ST_ bits and
// mount's MS_ bits for these coincide on Linux); inside a user namespace
// the kernel refuses to clear them, and they must stay anyway.
func bindReadOnly(p string) error {
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("binding %s: %w", p, err)
	}
	var st unix.Statfs_t
	keep := uintptr(0)
	if unix.Statfs(p, &st) == nil {
		keep = uintptr(st.Flags) & (unix.ST_NOSUID | unix.ST_NODEV | unix.ST_NOEXEC)
	}
	flags := uintptr(unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY) | keep
	if err := unix.Mount("", p, "", flags, ""); err != nil {
		return fmt.Errorf("making %s read-only: %w", p, err)
	}
	return nil
}
