package file

import (
	"context"
	"io/fs"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/codewhale/codewhale/internal/tools/confine"
)

// walkFile is one regular file found by a walk.
type walkFile struct {
	abs  string
	rel  string // relative to the walk base, '/'-separated
	name string
}

// walkSpec describes a tree walk: the base directory, the .gitignore context
// it starts in, and the exclude/include globs (include filters files only).
// Symlinks are never followed and .git directories are never entered.
type walkSpec struct {
	workers int // pool size; 0 means walkWorkers()
	fs      *confine.Set
	// secret reports a directory the walk must not enter (Tool.Secret);
	// visitors that read content ask it per file too.
	secret  func(abs string) bool
	base    string
	ign     ignoreContext
	exclude globSet
	include globSet
}

// visitFunc handles one file on worker w (0 <= w < spec.workers) and returns
// false to stop the walk.
type visitFunc func(w int, f walkFile) bool

// batchFiles is how many files of one directory a worker handles before it
// hands the rest to the pool, so one huge flat directory still fans out.
const batchFiles = 64

type walkJob struct {
	dir   string   // directory to read, or "" for a file batch
	rel   string   // dir relative to base ("" for base)
	comp  []string // dir relative to the ignore root
	ign   *ignoreNode
	files []walkFile
}

// walker runs jobs on a fixed pool; pending counts queued and running jobs.
type walker struct {
	spec    walkSpec
	visit   visitFunc
	ctx     context.Context
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []walkJob
	pending int
	stopped bool
}

// walkWorkers is the pool size of a walk.
func walkWorkers() int { return max(2, runtime.GOMAXPROCS(0)) }

// walkTree visits every regular file under spec.base that the ignore rules
// and globs let through, in parallel on walkWorkers() workers, until visit
// returns false or ctx ends. The visiting order is unspecified.
func walkTree(ctx context.Context, spec walkSpec, visit visitFunc) error {
	w := &walker{spec: spec, visit: visit, ctx: ctx}
	w.cond = sync.NewCond(&w.mu)
	w.queue = []walkJob{{dir: spec.base, comp: spec.ign.comp, ign: spec.ign.node}}
	w.pending = 1
	n := spec.workers
	if n <= 0 {
		n = walkWorkers()
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work(i)
		}()
	}
	wg.Wait()
	return ctx.Err()
}

func (w *walker) work(id int) {
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && w.pending > 0 && !w.stopped {
			w.cond.Wait()
		}
		if w.stopped || len(w.queue) == 0 {
			w.mu.Unlock()
			return
		}
		job := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		w.mu.Unlock()

		ok := w.ctx.Err() == nil
		if ok {
			if job.dir != "" {
				ok = w.readDir(id, job)
			} else {
				ok = w.visitAll(id, job.files)
			}
		}
		w.mu.Lock()
		w.pending--
		if !ok {
			w.stopped = true
		}
		if w.pending == 0 || w.stopped {
			w.cond.Broadcast()
		}
		w.mu.Unlock()
	}
}

func (w *walker) push(job walkJob) {
	w.mu.Lock()
	w.queue = append(w.queue, job)
	w.pending++
	w.cond.Signal()
	w.mu.Unlock()
}

func (w *walker) visitAll(id int, files []walkFile) bool {
	for _, f := range files {
		if !w.visit(id, f) {
			return false
		}
	}
	return true
}

// readDir lists one directory, queues its subdirectories and visits its
// files (handing batches beyond the first to the pool).
func (w *walker) readDir(id int, job walkJob) bool {
	f, err := w.spec.fs.Open(job.dir)
	if err != nil {
		return true // unreadable directories are skipped
	}
	entries, _ := f.ReadDir(-1)
	f.Close()
	ign := job.ign
	for _, e := range entries {
		if e.Name() == ".gitignore" {
			ign = ign.child(job.dir, job.comp)
			break
		}
	}
	var files []walkFile
	for _, e := range entries {
		name, typ := e.Name(), e.Type()
		// .git is never content: a directory, or in a linked worktree or
		// submodule the file that points at one.
		if typ&fs.ModeSymlink != 0 || (!typ.IsDir() && !typ.IsRegular()) || name == ".git" {
			continue
		}
		rel := name
		if job.rel != "" {
			rel = job.rel + "/" + name
		}
		if w.spec.exclude.match(rel, name) {
			continue
		}
		var comp []string
		if ign != nil {
			comp = append(job.comp[:len(job.comp):len(job.comp)], name)
			if ign.ignored(comp, typ.IsDir()) {
				continue
			}
		}
		abs := filepath.Join(job.dir, name)
		if typ.IsDir() {
			if w.spec.secret != nil && w.spec.secret(abs) {
				continue
			}
			if comp == nil {
				comp = append(job.comp[:len(job.comp):len(job.comp)], name)
			}
			w.push(walkJob{dir: abs, rel: rel, comp: comp, ign: ign})
			continue
		}
		if len(w.spec.include) > 0 && !w.spec.include.match(rel, name) {
			continue
		}
		files = append(files, walkFile{abs: abs, rel: rel, name: name})
	}
	for len(files) > batchFiles {
		w.push(walkJob{files: files[len(files)-batchFiles:]})
		files = files[:len(files)-batchFiles]
	}
	return w.visitAll(id, files)
}
