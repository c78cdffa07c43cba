package projectctx

import (
	"io/fs"
	"os"
	"sort"

	"github.com/codewhale/codewhale/internal/tools/confine"
)

// stamp is what a path looked like when the session read it.
type stamp struct {
	exists bool
	mode   fs.FileMode
	size   int64
	mod    int64 // modification time, nanoseconds
	target *stamp
}

func stampOf(fi fs.FileInfo, err error) stamp {
	if err != nil {
		return stamp{}
	}
	return stamp{exists: true, mode: fi.Mode().Type(), size: fi.Size(), mod: fi.ModTime().UnixNano()}
}

func (s stamp) same(o stamp) bool {
	if s.exists != o.exists || s.mode != o.mode || s.size != o.size || s.mod != o.mod {
		return false
	}
	if (s.target == nil) != (o.target == nil) {
		return false
	}
	return s.target == nil || s.target.same(*o.target)
}

// watch records every path a load consulted — files that exist, candidates
// that do not, the folders it listed — so a later look can tell, with one
// lstat per path and no reading, whether anything changed (CONTRACT.md
// §17.1: read once per session, changes noticed between turns).
type watch struct {
	seen map[string]stamp
	// files is the load's confined reader (readReal), its root opened
	// once for every file the load reads; load closes it.
	files *confine.Set
}

func newWatch() *watch { return &watch{seen: map[string]stamp{}} }

// lstat is os.Lstat, recorded; a symbolic link also records its target.
func (w *watch) lstat(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	w.seen[path] = look(path, fi, err)
	return fi, err
}

// readDir lists dir, recorded (a folder's modification time changes when
// an entry is added, removed or renamed). dir is canonical, and is opened
// through the load's confined reader, so a folder swapped for a link is
// not listed.
func (w *watch) readDir(dir string) ([]fs.DirEntry, error) {
	f, err := w.files.Open(dir)
	if err != nil {
		w.seen[dir] = stamp{}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	w.seen[dir] = stampOf(fi, err)
	if err != nil {
		return nil, err
	}
	entries, err := f.ReadDir(-1)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, err
}

// record notes what a file that is no link looked like when it was read.
func (w *watch) record(path string, fi fs.FileInfo) { w.seen[path] = stampOf(fi, nil) }

func look(path string, fi fs.FileInfo, err error) stamp {
	s := stampOf(fi, err)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		t := stampOf(os.Stat(path))
		s.target = &t
	}
	return s
}

// changed lists the recorded paths that look different now, sorted.
func (w *watch) changed() []string {
	var out []string
	for p, s := range w.seen {
		fi, err := os.Lstat(p)
		if !s.same(look(p, fi, err)) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
