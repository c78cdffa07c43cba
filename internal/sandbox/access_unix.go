//go:build unix

package sandbox

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// writableUnconfined reports whether the agent itself, unconfined, could
// write p (or create it in its parent): if not, a refusal is the file
// system's permissions, not the sandbox.
func writableUnconfined(p string) bool {
	if _, err := os.Lstat(p); err == nil {
		return unix.Access(p, unix.W_OK) == nil
	}
	return unix.Access(filepath.Dir(p), unix.W_OK) == nil
}
