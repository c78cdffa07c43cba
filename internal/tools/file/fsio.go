package file

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// newFileMode is the mode of a file File creates. Existing files keep theirs.
const newFileMode fs.FileMode = 0o644

// openBoundary is one call's confined view of the filesystem: the roots in
// force (the workspace and the trusted roots), opened on first use. Every
// byte File reads or writes goes through it, beneath an open root and
// through no symbolic link, so the path ResolvePath checked is the one
// used (issue 11 §4). The caller closes it.
func openBoundary(tc *tools.Context) *confine.Set { return confine.NewSet(tc.Roots()...) }

// fsView is what a mutation reads and writes through: the call's whole
// boundary (*confine.Set), or one directory of it pinned for a
// load-write-verify sequence (*confine.Dir). Paths are absolute.
type fsView interface {
	Open(abs string) (*os.File, error)
	Stat(abs string) (fs.FileInfo, error)
	WriteAtomic(abs string, data []byte, mode fs.FileMode) (fs.FileInfo, error)
	Remove(abs string) error
}

// fileOps is the mutation seam: the real filesystem in production, a wrapper
// that fails on demand in the rollback tests (root ignores permission bits,
// so a read-only directory cannot make a write fail there).
type fileOps interface {
	writeAtomic(v fsView, path string, data []byte, mode fs.FileMode) error
	remove(v fsView, path string) error
}

type osFileOps struct{}

// writeAtomic writes data to a temp file created in path's directory, gives
// it mode, syncs it and renames it over path within that directory, so
// readers see the old or the new content and never a torn file.
func (osFileOps) writeAtomic(v fsView, path string, data []byte, mode fs.FileMode) error {
	_, err := v.WriteAtomic(path, data, mode)
	return err
}

func (osFileOps) remove(v fsView, path string) error { return v.Remove(path) }

// keptMode is the part of an existing file's mode a rewrite preserves.
func keptMode(fi fs.FileInfo) fs.FileMode {
	return fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// mkdirTracked creates dir and its missing parents and returns the ones it
// created, outermost first, so a rollback can remove exactly those.
func mkdirTracked(b *confine.Set, dir string) ([]string, error) {
	return b.MkdirAll(dir, 0o755)
}

// existing is a file's state before a mutation; fi is nil for a new file.
// tooLarge marks a file over maxReadBytes, whose content was not read (data
// is nil): write replaces it without a diff, edit and patch refuse it.
type existing struct {
	fi       fs.FileInfo
	data     []byte
	tooLarge bool
}

// refuseTooLarge is edit's and patch's refusal of a file whose old content
// they need but that is over the read limit.
func (e existing) refuseTooLarge(action, abs string) error {
	if !e.tooLarge {
		return nil
	}
	return tools.ExecutionFailed("File `%s` refused %s: the file is %d bytes, over the %d-byte read limit, and %s "+
		"needs its old content; nothing was written. Use File action=\"write\" to replace it whole.",
		action, abs, e.fi.Size(), maxReadBytes, action)
}

// notRegular is the one check of a file's kind that every File action
// applies to the handle it opened, before reading or writing a byte: a
// named pipe, a socket or a device has no content to read (or no end to
// it), and replacing one with a regular file is not what a write means. It
// is nil for a regular file; verb is "read" or "write".
func notRegular(verb, abs string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	if verb == "read" {
		return tools.ExecutionFailed("Failed to read %s: not a regular file (%s); File reads regular files only.", abs, kindOf(fi.Mode()))
	}
	return tools.ExecutionFailed("Failed to write %s: not a regular file (%s); File writes regular files only and "+
		"does not replace one; nothing was written.", abs, kindOf(fi.Mode()))
}

// loadExisting reads the current text of abs for a mutation, stat and bytes
// from one open handle. A missing file is not an error; a directory, a
// special file (notRegular) or non-UTF-8 content is. A file over
// maxReadBytes is not read (tooLarge).
func loadExisting(v fsView, abs string) (existing, error) {
	f, err := v.Open(abs)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir) {
		return existing{}, nil
	}
	if err != nil {
		return existing{}, readFailed(abs, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return existing{}, readFailed(abs, err)
	}
	if fi.IsDir() {
		return existing{}, readFailed(abs, errors.New("is a directory"))
	}
	if err := notRegular("write", abs, fi); err != nil {
		return existing{}, err
	}
	if fi.Size() > maxReadBytes {
		return existing{fi: fi, tooLarge: true}, nil
	}
	data, err := readAll(f, fi.Size())
	if err != nil {
		return existing{}, readFailed(abs, err)
	}
	if !utf8.Valid(data) {
		return existing{}, readFailed(abs, errInvalidUTF8)
	}
	return existing{fi: fi, data: data}, nil
}

// readFileIn reads the whole file abs through v.
func readFileIn(v fsView, abs string) ([]byte, error) {
	f, err := v.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readAll(f, fi.Size())
}

// readAll reads f to EOF, sizing the buffer from the stat's size (the file
// may still grow), as os.ReadFile does.
func readAll(f io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, 0, max(size, 0)+1)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// pinned is a view that opens each parent directory once and keeps it for a
// whole transaction: a patch loads, writes and, on failure, restores every
// file in the directory it first opened, so a directory swapped mid-patch
// can neither receive a write nor make the rollback miss. Not safe for
// concurrent use; Close releases the directories.
type pinned struct {
	b    *confine.Set
	dirs map[string]*confine.Dir
}

func pin(b *confine.Set) *pinned { return &pinned{b: b, dirs: map[string]*confine.Dir{}} }

func (p *pinned) dir(abs string) (*confine.Dir, error) {
	parent := filepath.Dir(abs)
	if d := p.dirs[parent]; d != nil {
		return d, nil
	}
	d, err := p.b.OpenParent(abs)
	if err != nil {
		return nil, err
	}
	p.dirs[parent] = d
	return d, nil
}

func (p *pinned) Open(abs string) (*os.File, error) {
	d, err := p.dir(abs)
	if err != nil {
		return nil, err
	}
	return d.Open(abs)
}

func (p *pinned) Stat(abs string) (fs.FileInfo, error) {
	d, err := p.dir(abs)
	if err != nil {
		return nil, err
	}
	return d.Stat(abs)
}

func (p *pinned) WriteAtomic(abs string, data []byte, mode fs.FileMode) (fs.FileInfo, error) {
	d, err := p.dir(abs)
	if err != nil {
		return nil, err
	}
	return d.WriteAtomic(abs, data, mode)
}

func (p *pinned) Remove(abs string) error {
	d, err := p.dir(abs)
	if err != nil {
		return err
	}
	return d.Remove(abs)
}

func (p *pinned) RemoveDir(abs string) error {
	d, err := p.dir(abs)
	if err != nil {
		return err
	}
	return d.RemoveDir(abs)
}

func (p *pinned) Chtimes(abs string, atime, mtime time.Time) error {
	d, err := p.dir(abs)
	if err != nil {
		return err
	}
	return d.Chtimes(abs, atime, mtime)
}

// Readlink is the target text of the symbolic link abs.
func (p *pinned) Readlink(abs string) (string, error) {
	r, rel, err := p.b.Locate(abs)
	if err != nil {
		return "", err
	}
	return r.Readlink(rel)
}

// Symlink makes abs a symbolic link to target (a rollback restoring a
// deleted link).
func (p *pinned) Symlink(target, abs string) error {
	r, rel, err := p.b.Locate(abs)
	if err != nil {
		return err
	}
	return r.Symlink(target, rel)
}

// MkdirAll creates dir and its missing parents through the boundary and
// pins the parent of each one it created, so a rollback removes exactly
// those.
func (p *pinned) MkdirAll(dir string) ([]string, error) {
	created, err := p.b.MkdirAll(dir, 0o755)
	for _, c := range created {
		_, _ = p.dir(c)
	}
	return created, err
}

// Close releases every pinned directory.
func (p *pinned) Close() {
	for k, d := range p.dirs {
		d.Close()
		delete(p.dirs, k)
	}
}
