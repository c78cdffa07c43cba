package tasks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// writeAtomic makes data the content of path without ever exposing a
// partial file: it writes the staged sibling, fsyncs it, renames it over
// path and fsyncs the directory. A crash leaves either the old file, the
// new file, or a staged file that Open completes or quarantines.
func writeAtomic(path, staged string, data []byte) error {
	f, err := os.OpenFile(staged, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("stage %s: %w", staged, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(staged, path)
	}
	if err != nil {
		os.Remove(staged)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// writeJSONAtomic writes v as indented JSON through writeAtomic.
func writeJSONAtomic(path, staged string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, staged, append(data, '\n'))
}

// quarantine moves a damaged file aside as <name>.corrupt-<UTC timestamp>
// (a leading dot is dropped so the file is visible) and returns the new
// path. The file is never deleted.
func quarantine(path string, now time.Time) (string, error) {
	dir, name := filepath.Split(path)
	base := filepath.Join(dir, strings.TrimPrefix(name, ".")+".corrupt-"+now.UTC().Format("20060102T150405.000000000Z"))
	target := base
	for i := 1; ; i++ {
		if _, err := os.Lstat(target); os.IsNotExist(err) {
			break
		}
		target = fmt.Sprintf("%s-%d", base, i)
	}
	if err := os.Rename(path, target); err != nil {
		return "", err
	}
	return target, syncDir(dir)
}
