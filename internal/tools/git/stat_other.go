//go:build !(linux || darwin || freebsd)

package git

import (
	"os"
	"path/filepath"
)

// pathStatter lstats paths below root where fstatat(2) is not available;
// only the mode, size and mtime are known.
type pathStatter struct{ root string }

func newStatter(root string) (statter, error) { return pathStatter{root: root}, nil }

func (pathStatter) close() {}

func (s pathStatter) lstat(rel string) (fileStat, error) {
	fi, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(rel)))
	if err != nil {
		return fileStat{}, err
	}
	m := fi.ModTime()
	return fileStat{mode: fi.Mode(), size: fi.Size(), mtimeSec: m.Unix(), mtimeNsec: int64(m.Nanosecond())}, nil
}
