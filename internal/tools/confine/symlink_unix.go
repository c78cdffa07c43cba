//go:build unix

package confine

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Symlink makes rel a symbolic link to target, replacing a file or link
// that is there (never a directory): the link is made under a temp name in
// rel's directory, opened beneath the root, and renamed over rel within it.
// target is stored as given; nothing resolves it here.
func (r *Root) Symlink(target, rel string) error {
	return r.inParent("symlink", rel, func(d dirHandle, name string) error {
		for range 100 {
			tmp := tempName(name)
			err := unix.Symlinkat(target, d.fd, tmp)
			if errors.Is(err, unix.EEXIST) {
				continue
			}
			if err != nil {
				return err
			}
			if err := renameat(d.fd, tmp, name); err != nil {
				_ = unix.Unlinkat(d.fd, tmp, 0)
				return err
			}
			return nil
		}
		return errors.New("could not create a unique temp name")
	})
}

// Readlink is the target text of the symbolic link rel (never followed),
// read in rel's directory opened beneath the root.
func (r *Root) Readlink(rel string) (string, error) {
	var target string
	err := r.inParent("readlink", rel, func(d dirHandle, name string) error {
		buf := make([]byte, 4096)
		n, err := unix.Readlinkat(d.fd, name, buf)
		if err != nil {
			return err
		}
		target = string(buf[:n])
		return nil
	})
	return target, err
}
