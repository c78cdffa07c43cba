//go:build unix

package shellpolicy

import "syscall"

// The classifier looks up to maxLstat arguments of every command line up
// as symlinks, and gits walk their directory's ancestors for a .git: these
// are os.Lstat's and os.Stat's answers without their allocations (a
// FileInfo, and a PathError for the many names that do not exist).

// isSymlink reports whether p names a symbolic link.
func isSymlink(p string) bool {
	exists, mode := kind(p, syscall.Lstat)
	return exists && mode == syscall.S_IFLNK
}

// lstatKind reports whether p exists (a link counts, not followed) and
// is a directory.
func lstatKind(p string) (exists, dir bool) {
	exists, mode := kind(p, syscall.Lstat)
	return exists, mode == syscall.S_IFDIR
}

// statKind is lstatKind through symlinks.
func statKind(p string) (exists, dir bool) {
	exists, mode := kind(p, syscall.Stat)
	return exists, mode == syscall.S_IFDIR
}

func kind(p string, stat func(string, *syscall.Stat_t) error) (exists bool, mode uint32) {
	var st syscall.Stat_t
	for {
		err := stat(p, &st)
		if err == syscall.EINTR {
			continue
		}
		return err == nil, uint32(st.Mode) & syscall.S_IFMT
	}
}
