//go:build linux || darwin || freebsd

package git

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// rootStatter lstats paths relative to an open worktree root with
// fstatat(2): git runs from the root and stats short relative paths, and
// resolving a long absolute path per file would double the cost on large
// trees.
type rootStatter struct{ fd int }

func newStatter(root string) (statter, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	return rootStatter{fd: fd}, nil
}

func (s rootStatter) close() { unix.Close(s.fd) }

func (s rootStatter) lstat(rel string) (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(s.fd, rel, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fileStat{}, &fs.PathError{Op: "lstat", Path: rel, Err: err}
	}
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFREG:
	default:
		mode |= fs.ModeIrregular
	}
	return fileStat{mode: mode, size: st.Size, full: true,
		mtimeSec: int64(st.Mtim.Sec), mtimeNsec: int64(st.Mtim.Nsec),
		ctimeSec: int64(st.Ctim.Sec), ctimeNsec: int64(st.Ctim.Nsec),
		ino: uint64(st.Ino), uid: st.Uid, gid: st.Gid}, nil
}
