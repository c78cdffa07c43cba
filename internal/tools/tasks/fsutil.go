package tasks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/codewhale/codewhale/internal/atomicfile"
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

// quarantine moves a damaged file aside (atomicfile.Quarantine) and makes
// the move durable.
func quarantine(path string, now time.Time) (string, error) {
	target, err := atomicfile.Quarantine(path, now)
	if err != nil {
		return "", err
	}
	return target, syncDir(filepath.Dir(path))
}
