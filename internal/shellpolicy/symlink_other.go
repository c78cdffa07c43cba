//go:build !unix

package shellpolicy

import "os"

// isSymlink reports whether p names a symbolic link.
func isSymlink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}
