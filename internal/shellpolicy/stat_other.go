//go:build !unix

package shellpolicy

import "os"

// isSymlink reports whether p names a symbolic link.
func isSymlink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// lstatKind reports whether p exists (a link counts, not followed) and
// is a directory.
func lstatKind(p string) (exists, dir bool) {
	fi, err := os.Lstat(p)
	return err == nil, err == nil && fi.IsDir()
}

// statKind is lstatKind through symlinks.
func statKind(p string) (exists, dir bool) {
	fi, err := os.Stat(p)
	return err == nil, err == nil && fi.IsDir()
}
