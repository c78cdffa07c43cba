package confine

import (
	"errors"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// statFlags open a path only to describe it: O_PATH needs no read permission.
const statFlags = unix.O_PATH

// noOpenat2 records that the kernel (or a seccomp filter) refused openat2,
// so later opens go straight to the walk.
var noOpenat2 atomic.Bool

// openat2Beneath opens rel beneath dirfd with one openat2 call: no
// component may leave the root (RESOLVE_BENEATH), be a link
// (RESOLVE_NO_SYMLINKS) or a /proc magic link (RESOLVE_NO_MAGICLINKS). ok is
// false when openat2 is unavailable and the caller must walk instead.
func openat2Beneath(dirfd int, rel string, flags int, mode uint32) (int, error, bool) {
	if noOpenat2.Load() {
		return -1, nil, false
	}
	how := unix.OpenHow{Flags: uint64(flags),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	if flags&(unix.O_CREAT|unix.O_TMPFILE) != 0 {
		how.Mode = uint64(mode)
	}
	for {
		fd, err := unix.Openat2(dirfd, rel, &how)
		switch {
		case err == nil:
			return fd, nil, true
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			// EAGAIN: a concurrent rename or mount; the kernel asks for a retry.
			continue
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM) && !permittedEPERM(dirfd):
			noOpenat2.Store(true)
			return -1, nil, false
		}
		return -1, linkError(err), true
	}
}

// permittedEPERM reports whether EPERM from openat2 is the file's own answer
// (openat2 works on the root itself) rather than a seccomp filter that
// forbids the call.
func permittedEPERM(dirfd int) bool {
	fd, err := unix.Openat2(dirfd, ".", &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC | unix.O_DIRECTORY,
		Resolve: unix.RESOLVE_BENEATH})
	if err == nil {
		unix.Close(fd)
		return true
	}
	return false
}
