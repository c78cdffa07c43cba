//go:build unix

package confine

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

func openHandle(path string) (dirHandle, error) {
	fd, err := retryEINTR(func() (int, error) {
		return unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return dirHandle{}, pathError("open", path, err)
	}
	return dirHandle{fd: fd}, nil
}

// OpenFd opens rel beneath the root with flags (O_CLOEXEC and O_NOFOLLOW are
// added) and returns the raw descriptor; the caller closes it. It exists for
// the content search, which reads thousands of small files and cannot
// afford an *os.File (poller registration) per file.
func (r *Root) OpenFd(rel string, flags int) (int, error) {
	fd, err := r.openAt(rel, flags, 0)
	if err != nil {
		return -1, pathError("open", r.abs(rel), err)
	}
	return fd, nil
}

// openAt opens rel beneath the root: one openat2 where the kernel has it,
// else a component-by-component openat walk.
func (r *Root) openAt(rel string, flags int, mode uint32) (int, error) {
	if _, _, err := splitRel(rel); err != nil {
		return -1, err
	}
	if rel == "" {
		rel = "."
	}
	flags |= unix.O_CLOEXEC | unix.O_NOFOLLOW
	fd, err, ok := openat2Beneath(r.h.fd, rel, flags, mode)
	if !ok {
		fd, err = walkOpen(r.h.fd, rel, flags, mode)
	}
	return fd, notDirError(r.h.fd, rel, err)
}

// notDirError names the usual cause of ENOTDIR here: with O_DIRECTORY and
// O_NOFOLLOW a link where a directory was expected fails with ENOTDIR, not
// ELOOP. The lstat only labels the error; it opens nothing.
func notDirError(dirfd int, rel string, err error) error {
	if !errors.Is(err, unix.ENOTDIR) {
		return err
	}
	var st unix.Stat_t
	for p := rel; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		if unix.Fstatat(dirfd, p, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return ErrSymlink
		}
	}
	return err
}

// walkOpen opens rel beneath dirfd one component at a time, each with
// O_NOFOLLOW, so no link is ever followed.
func walkOpen(dirfd int, rel string, flags int, mode uint32) (int, error) {
	parent, base, err := splitRel(rel)
	if err != nil {
		return -1, err
	}
	cur, owned := dirfd, false
	defer func() {
		if owned {
			unix.Close(cur)
		}
	}()
	if parent != "" {
		for _, c := range strings.Split(parent, "/") {
			if c == "" || c == "." {
				continue
			}
			fd, err := retryEINTR(func() (int, error) {
				return unix.Openat(cur, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			})
			if err != nil {
				return -1, linkError(notDirError(cur, c, err))
			}
			if owned {
				unix.Close(cur)
			}
			cur, owned = fd, true
		}
	}
	fd, err := retryEINTR(func() (int, error) { return unix.Openat(cur, base, flags, mode) })
	if err != nil {
		return -1, linkError(err)
	}
	return fd, nil
}

// linkError maps the errno of an O_NOFOLLOW open of a link (ELOOP; EMLINK on
// FreeBSD) to ErrSymlink and EXDEV (a resolution that left the root) to
// ErrEscape.
func linkError(err error) error {
	switch {
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EMLINK):
		return ErrSymlink
	case errors.Is(err, unix.EXDEV):
		return ErrEscape
	}
	return err
}

func retryEINTR(f func() (int, error)) (int, error) {
	for {
		fd, err := f()
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// Open opens rel read-only: a file or a directory.
func (r *Root) Open(rel string) (*os.File, error) {
	fd, err := r.openAt(rel, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, pathError("open", r.abs(rel), err)
	}
	return blockingFile(fd, r.abs(rel)), nil
}

// blockingFile wraps fd, opened O_NONBLOCK only so that opening a FIFO
// cannot hang, as an ordinary blocking *os.File.
func blockingFile(fd int, name string) *os.File {
	_ = unix.SetNonblock(fd, false)
	return os.NewFile(uintptr(fd), name)
}

// Stat describes rel itself (it is never followed).
func (r *Root) Stat(rel string) (fs.FileInfo, error) {
	fd, err := r.openAt(rel, statFlags, 0)
	if err != nil {
		return nil, pathError("stat", r.abs(rel), err)
	}
	return fstatClose(fd, r.abs(rel))
}

func fstatClose(fd int, name string) (fs.FileInfo, error) {
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return f.Stat()
}

// openDir opens the directory rel beneath the root.
func (r *Root) openDir(rel string) (dirHandle, error) {
	fd, err := r.openAt(rel, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	return dirHandle{fd: fd}, err
}

// parent opens the directory that holds rel and returns it with rel's last
// component.
func (r *Root) parent(rel string) (dirHandle, string, error) {
	dir, base, err := splitRel(rel)
	if err != nil {
		return dirHandle{}, "", err
	}
	if base == "." {
		return dirHandle{}, "", ErrEscape // the root itself has no parent here
	}
	h, err := r.openDir(dirOrDot(dir))
	return h, base, err
}

// inParent runs op on rel's entry in its opened parent directory.
func (r *Root) inParent(verb, rel string, op func(d dirHandle, name string) error) error {
	d, name, err := r.parent(rel)
	if err != nil {
		return pathError(verb, r.abs(rel), err)
	}
	defer d.close()
	return pathError(verb, r.abs(rel), op(d, name))
}

// WriteAtomic replaces rel with data: a temp file is created in rel's
// directory (opened beneath the root), written, given mode, synced, and
// renamed over rel within that directory, so readers see the old or the
// new content, never a torn file, and the bytes land in the directory that
// was checked even if its name is swapped meanwhile. It returns the new
// file's state.
func (r *Root) WriteAtomic(rel string, data []byte, mode fs.FileMode) (fi fs.FileInfo, err error) {
	return r.replace(rel, data, mode, true)
}

// WriteScratch is WriteAtomic without the sync to disk: for a tool's
// scratch files, which need not survive a crash (a 50 MB sync costs a
// second).
func (r *Root) WriteScratch(rel string, data []byte, mode fs.FileMode) (fi fs.FileInfo, err error) {
	return r.replace(rel, data, mode, false)
}

func (r *Root) replace(rel string, data []byte, mode fs.FileMode, sync durable) (fi fs.FileInfo, err error) {
	err = r.inParent("write", rel, func(d dirHandle, name string) error {
		fi, err = d.writeAtomic(name, data, mode, sync)
		return err
	})
	return fi, err
}

// Remove deletes the file rel (a link itself, never its target).
func (r *Root) Remove(rel string) error {
	return r.inParent("remove", rel, func(d dirHandle, name string) error { return d.remove(name) })
}

// RemoveDir deletes the empty directory rel.
func (r *Root) RemoveDir(rel string) error {
	return r.inParent("remove", rel, dirHandle.removeDir)
}

// Chtimes sets rel's access and modification times (rel itself, never a
// link's target).
func (r *Root) Chtimes(rel string, atime, mtime time.Time) error {
	return r.inParent("chtimes", rel, func(d dirHandle, name string) error { return d.chtimes(name, atime, mtime) })
}

// dirHandle is an open directory; its operations act on its entries by
// name and never follow a link.
type dirHandle struct{ fd int }

func (d dirHandle) close() error { return unix.Close(d.fd) }

func (d dirHandle) open(name string) (*os.File, error) {
	fd, err := retryEINTR(func() (int, error) {
		return unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, linkError(err)
	}
	return blockingFile(fd, name), nil
}

func (d dirHandle) stat(name string) (fs.FileInfo, error) {
	fd, err := retryEINTR(func() (int, error) {
		return unix.Openat(d.fd, name, statFlags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, linkError(err)
	}
	return fstatClose(fd, name)
}

func (d dirHandle) writeAtomic(name string, data []byte, mode fs.FileMode, sync durable) (fs.FileInfo, error) {
	tmp, fd, err := createTemp(d.fd, name)
	if err != nil {
		return nil, err
	}
	fi, err := fill(os.NewFile(uintptr(fd), tmp), data, mode, sync)
	if err == nil {
		err = renameat(d.fd, tmp, name)
	}
	if err != nil {
		_ = unix.Unlinkat(d.fd, tmp, 0)
		return nil, err
	}
	return fi, nil
}

func (d dirHandle) remove(name string) error { return unix.Unlinkat(d.fd, name, 0) }

func (d dirHandle) removeDir(name string) error { return unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR) }

func (d dirHandle) chtimes(name string, atime, mtime time.Time) error {
	ts := []unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	return unix.UtimesNanoAt(d.fd, name, ts, unix.AT_SYMLINK_NOFOLLOW)
}

func createTemp(dirfd int, base string) (string, int, error) {
	for range 100 {
		name := tempName(base)
		fd, err := retryEINTR(func() (int, error) {
			return unix.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		})
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		return name, fd, err
	}
	return "", -1, errors.New("could not create a unique temp file")
}

func renameat(dirfd int, from, to string) error {
	for {
		err := unix.Renameat(dirfd, from, dirfd, to)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// MkdirAll creates the directory rel and its missing parents, each with
// mkdirat in its opened parent, and returns the ones it created (relative,
// outermost first).
func (r *Root) MkdirAll(rel string, perm fs.FileMode) ([]string, error) {
	parent, base, err := splitRel(rel)
	if err != nil {
		return nil, pathError("mkdir", r.abs(rel), err)
	}
	if base == "." {
		return nil, nil
	}
	comps := append(strings.Split(parent, "/"), base)
	cur, owned := r.h.fd, false
	defer func() {
		if owned {
			unix.Close(cur)
		}
	}()
	var created []string
	done := ""
	for _, c := range comps {
		if c == "" {
			continue
		}
		done = joinRel(done, c)
		fd, made, err := openOrMkdir(cur, c, uint32(perm.Perm()))
		if made {
			created = append(created, done)
		}
		if err != nil {
			return created, pathError("mkdir", r.abs(done), linkError(notDirError(cur, c, err)))
		}
		if owned {
			unix.Close(cur)
		}
		cur, owned = fd, true
	}
	return created, nil
}

func openOrMkdir(dirfd int, name string, perm uint32) (fd int, made bool, err error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	for range 3 {
		fd, err = retryEINTR(func() (int, error) { return unix.Openat(dirfd, name, flags, 0) })
		if !errors.Is(err, unix.ENOENT) {
			return fd, made, err
		}
		if err = unix.Mkdirat(dirfd, name, perm); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, made, err
		}
		made = made || err == nil
	}
	return -1, made, err
}

func joinRel(a, b string) string {
	if a == "" {
		return b
	}
	return a + "/" + b
}
