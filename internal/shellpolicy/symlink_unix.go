//go:build unix

package shellpolicy

import "syscall"

// isSymlink reports whether p names a symbolic link. It is os.Lstat's
// answer without its allocations (a FileInfo, and a PathError for the
// many arguments that name nothing): the classifier asks for up to
// maxLstat arguments of every command line.
func isSymlink(p string) bool {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(p, &st)
		if err == syscall.EINTR {
			continue
		}
		return err == nil && st.Mode&syscall.S_IFMT == syscall.S_IFLNK
	}
}
