//go:build unix

package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// mkdirBeneath creates dir and its missing parents below base, one
// component at a time relative to the descriptor of the last (mkdirat,
// then openat with O_NOFOLLOW|O_DIRECTORY), so no component can be a
// symbolic link, even one swapped in during the walk.
func mkdirBeneath(base, dir string) error {
	rel, err := filepath.Rel(base, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("sandbox: %s is not below %s", dir, base)
	}
	fd, err := unix.Open(base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox: opening %s: %w", base, err)
	}
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		if err := unix.Mkdirat(fd, name, 0o700); err != nil && err != unix.EEXIST {
			unix.Close(fd)
			return fmt.Errorf("sandbox: creating %s: %w", dir, err)
		}
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("sandbox: creating %s: %s is not a plain directory: %w", dir, name, err)
		}
		fd = next
	}
	unix.Close(fd)
	return nil
}
