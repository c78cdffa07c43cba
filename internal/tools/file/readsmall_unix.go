//go:build unix

package file

import (
	"syscall"

	"github.com/codewhale/codewhale/internal/tools/confine"
)

// readSmall reads abs into buf (reused when large enough) and says whether
// it could: not for unreadable files, nor for files over maxSearchFileBytes. The file is opened
// through the boundary (beneath its root, through no link), so a walk that
// races with a swapped directory never reads outside. It uses raw system
// calls: an *os.File registers each descriptor with the runtime poller
// (fcntl + epoll_ctl), which costs more than the read itself for the small
// files a content search visits by the thousand.
func readSmall(b *confine.Set, abs string, buf []byte) ([]byte, readStatus) {
	r, rel, err := b.Locate(abs)
	if err != nil {
		return buf, readUnreadable
	}
	// O_NONBLOCK: a FIFO swapped in for a regular file must not hang the walk.
	fd, err := r.OpenFd(rel, syscall.O_RDONLY|syscall.O_NONBLOCK)
	if err != nil {
		return buf, readUnreadable
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return buf, readUnreadable
	}
	if st.Size > maxSearchFileBytes {
		return buf, readTooLarge
	}
	size := int(st.Size)
	if cap(buf) < size {
		buf = make([]byte, size, size+size/4)
	}
	buf = buf[:size]
	n := 0
	for n < size {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf, readUnreadable
		}
		if m == 0 {
			break // the file shrank since the stat
		}
		n += m
	}
	return buf[:n], readOK
}
