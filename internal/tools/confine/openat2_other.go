//go:build unix && !linux

package confine

import "golang.org/x/sys/unix"

// statFlags open a path only to describe it (no O_PATH here; O_NONBLOCK
// keeps a FIFO from blocking the open).
const statFlags = unix.O_RDONLY | unix.O_NONBLOCK

// openat2Beneath is Linux-only; elsewhere the caller walks.
func openat2Beneath(int, string, int, uint32) (int, error, bool) { return -1, nil, false }
