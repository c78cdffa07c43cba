package git

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Like git's preload-index: one worker per 500 entries, at most 20.
const (
	entriesPerWorker = 500
	maxWorkers       = 20
)

// fileStat is the part of lstat(2) that git caches in the index. full
// reports whether ctime, inode and owner are known.
type fileStat struct {
	mode                fs.FileMode
	size                int64
	mtimeSec, mtimeNsec int64
	ctimeSec, ctimeNsec int64
	ino                 uint64
	uid, gid            uint32
	full                bool
}

// statter lstats worktree paths given relative to the root.
type statter interface {
	lstat(rel string) (fileStat, error)
	close()
}

// worktreeChanges fills the worktree column: each stage-0 index entry
// against the file on disk. Stat data decides first, as in git; content is
// hashed only when the stat data changed or the entry is racily clean
// (modified in the same instant the index was written). Entries are checked
// in parallel, as git's preload-index does.
func (rp *repo) worktreeChanges(ctx context.Context, idx *gitIndex, spec pathSpec, changes statusSet) error {
	var todo []*indexEntry
	for i := range idx.entries {
		e := &idx.entries[i]
		if e.stage == 0 && !e.skipWorktree && !e.assumeValid && e.mode&^0o777 != modeGitlink && spec.match(e.name) {
			todo = append(todo, e)
		}
	}
	chk, err := rp.newWorktreeCheck(idx)
	if err != nil {
		return failf("fatal: " + err.Error())
	}
	defer chk.st.close()
	cols := make([]byte, len(todo))
	errs := make([]error, len(todo))
	workers := max(1, min(maxWorkers, len(todo)/entriesPerWorker))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(todo); i += workers {
				if i%1024 == w && ctx.Err() != nil {
					return
				}
				cols[i], errs[i] = chk.column(todo[i])
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	for i, e := range todo {
		if cols[i] != 0 {
			changes.at(e.name).y = cols[i]
		}
	}
	return nil
}

// worktreeCheck compares index entries with the files under root.
type worktreeCheck struct {
	rp                   *repo
	clean                *cleaner
	root                 string
	st                   statter
	indexMtime           int64 // nanoseconds
	trustCtime, fileMode bool
}

func (rp *repo) newWorktreeCheck(idx *gitIndex) (worktreeCheck, error) {
	st, err := newStatter(rp.root)
	if err != nil {
		return worktreeCheck{}, err
	}
	var mtime int64
	if !idx.mtime.IsZero() {
		mtime = idx.mtime.UnixNano()
	}
	return worktreeCheck{rp: rp, clean: newCleaner(rp, idx), root: rp.root, st: st, indexMtime: mtime,
		trustCtime: rp.configBool("core", "trustctime", true), fileMode: rp.configBool("core", "filemode", true)}, nil
}

// column is the worktree status letter for e: 0 (clean), 'M', 'D', 'T', or
// 'A' for an intent-to-add entry. A file whose stat data changed is
// compared by content after git's clean conversion (end-of-line
// attributes), as git compares it.
func (c worktreeCheck) column(e *indexEntry) (byte, error) {
	if e.intentToAdd {
		return 'A', nil
	}
	st, err := c.st.lstat(e.name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return 'D', nil
		}
		return 'M', nil
	}
	switch {
	case st.mode.IsDir():
		return 'D', nil
	case e.mode&^0o777 == modeSymlink:
		if st.mode&fs.ModeSymlink == 0 {
			return 'T', nil
		}
	case !st.mode.IsRegular():
		return 'T', nil
	case c.fileMode && (e.mode&0o100 != 0) != (st.mode&0o100 != 0):
		return 'M', nil
	}
	mtime := int64(e.mtimeSec)*1e9 + int64(e.mtimeNsec)
	racy := c.indexMtime != 0 && mtime >= c.indexMtime
	if !statChanged(e, st, c.trustCtime) && !racy {
		return 0, nil
	}
	same, err := c.sameContent(e, st.mode)
	if err != nil || same {
		return 0, err
	}
	return 'M', nil
}

// sameContent hashes the worktree file (a symlink's target text, a regular
// file's clean conversion) and compares it with the index entry.
func (c worktreeCheck) sameContent(e *indexEntry, mode fs.FileMode) (bool, error) {
	abs := filepath.Join(c.root, filepath.FromSlash(e.name))
	if mode&fs.ModeSymlink != 0 {
		target, err := os.Readlink(abs)
		return err == nil && blobHash([]byte(target)) == e.hash, nil
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return false, nil
	}
	cleaned, err := c.clean.clean(e.name, data, func() []byte { return c.rp.blobBytes(e.hash) })
	if err != nil {
		return false, err
	}
	return blobHash(cleaned) == e.hash, nil
}

// statChanged compares the cached stat data of an index entry with a fresh
// lstat the way git does by default: mtime and ctime to the nanosecond
// (ctime only with core.trustctime), inode, owner and the size's low 32
// bits.
func statChanged(e *indexEntry, st fileStat, trustCtime bool) bool {
	if uint32(st.mtimeSec) != e.mtimeSec || uint32(st.mtimeNsec) != e.mtimeNsec || uint32(st.size) != e.size {
		return true
	}
	if !st.full {
		return false
	}
	if trustCtime && (uint32(st.ctimeSec) != e.ctimeSec || uint32(st.ctimeNsec) != e.ctimeNsec) {
		return true
	}
	return uint32(st.ino) != e.ino || st.uid != e.uid || st.gid != e.gid
}
