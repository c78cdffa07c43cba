// Package atomicfile replaces a file's content so that readers see either
// the old file or the whole new one, never a half-written file: the data
// goes to a temporary file in the same directory, is synced, and is renamed
// over the target.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Write atomically replaces path with data, creating missing parent
// directories with dirPerm. The file gets perm; an existing file keeps its
// own permissions when keepMode is set.
func Write(path string, data []byte, perm os.FileMode, keepMode bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if keepMode {
		if st, err := os.Stat(path); err == nil {
			perm = st.Mode().Perm()
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Quarantine moves a damaged file aside as <name>.corrupt-<UTC timestamp>
// (a leading dot dropped so the file is visible) and returns the new path.
// The file is never deleted.
func Quarantine(path string, now time.Time) (string, error) {
	dir, name := filepath.Split(path)
	base := filepath.Join(dir, strings.TrimPrefix(name, ".")+".corrupt-"+now.UTC().Format("20060102T150405.000000000Z"))
	target := base
	for i := 1; ; i++ {
		if _, err := os.Lstat(target); os.IsNotExist(err) {
			break
		}
		target = fmt.Sprintf("%s-%d", base, i)
	}
	return target, os.Rename(path, target)
}
