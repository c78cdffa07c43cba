package file

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// newFileMode is the mode of a file File creates. Existing files keep theirs.
const newFileMode fs.FileMode = 0o644

// fileOps is the mutation seam: the real filesystem in production, a wrapper
// that fails on demand in the rollback tests (root ignores permission bits,
// so a read-only directory cannot make a write fail there).
type fileOps interface {
	writeAtomic(path string, data []byte, mode fs.FileMode) error
	remove(path string) error
}

type osFileOps struct{}

// writeAtomic writes data to a temp file in path's directory, gives it mode,
// syncs it and renames it over path, so readers see the old or the new
// content and never a torn file.
func (osFileOps) writeAtomic(path string, data []byte, mode fs.FileMode) error {
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, "."+base+".cw-tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

func (osFileOps) remove(path string) error { return os.Remove(path) }

// keptMode is the part of an existing file's mode a rewrite preserves.
func keptMode(fi fs.FileInfo) fs.FileMode {
	return fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// mkdirTracked creates dir and its missing parents and returns the ones it
// created, outermost first, so a rollback can remove exactly those.
func mkdirTracked(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append([]string{d}, missing...)
		if filepath.Dir(d) == d {
			break
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return missing, nil
}

// existing is a file's state before a mutation; fi is nil for a new file.
type existing struct {
	fi   fs.FileInfo
	data []byte
}

// loadExisting reads the current text of abs for a mutation. A missing file
// is not an error; a directory or non-UTF-8 content is.
func loadExisting(abs string) (existing, error) {
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir) {
		return existing{}, nil
	}
	if err != nil {
		return existing{}, readFailed(abs, err)
	}
	if fi.IsDir() {
		return existing{}, readFailed(abs, errors.New("is a directory"))
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return existing{}, readFailed(abs, err)
	}
	if !utf8.Valid(data) {
		return existing{}, readFailed(abs, errInvalidUTF8)
	}
	return existing{fi: fi, data: data}, nil
}
