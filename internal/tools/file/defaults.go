package file

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/codewhale/codewhale/internal/gitrepo"
)

// The default excludes of the searches (CONTRACT.md §6.2), applied when a call
// gives no `exclude`: directories by name at any depth (never a file of that
// name), files by name glob.
var (
	contentDefaultDirs  = []string{"node_modules", ".git", "target", "dist", "build", "__pycache__", ".venv", "venv"}
	contentDefaultFiles = []string{"*.min.js", "*.min.css"}
	nameDefaultDirs     = []string{"target", "node_modules", ".git", "DerivedData", "dist", "build"}
	nameDefaultFiles    = []string{"*.lock", "*.plist"}
)

// maxReportedDefaults bounds the paths a result lists as skipped by default.
const maxReportedDefaults = 10

// defaultRules are one call's default excludes and the record of what they
// skipped. In a git repository a directory that holds tracked files is never
// skipped by a directory rule: build output is normally ignored by the
// repository's own .gitignore, and a tracked `go/build` or `cmd/dist` is
// source.
type defaultRules struct {
	dirs, files []string
	tracked     *trackedDirs // nil outside a repository
	skipped     []string     // the first maxReportedDefaults skipped paths, workspace-relative
	count       int
}

func newDefaultRules(dirs, files []string, ign ignoreContext) *defaultRules {
	r := &defaultRules{dirs: dirs, files: files}
	if ign.m != nil {
		if gitrepo.IsTop(ign.m.RootDir()) {
			r.tracked = &trackedDirs{root: ign.m.RootDir()}
		}
	}
	return r
}

// skips reports whether the defaults exclude an entry; ignRel is its path
// relative to the ignore root (the repository's top in a repository) and
// shown the path a result names it by.
func (r *defaultRules) skips(ignRel, shown, name string, isDir bool) bool {
	if r == nil {
		return false
	}
	hit := false
	if isDir {
		for _, d := range r.dirs {
			if name == d {
				hit = !r.tracked.holds(ignRel)
				break
			}
		}
	} else {
		for _, g := range r.files {
			if ok, _ := doublestar.Match(g, name); ok {
				hit = true
				break
			}
		}
	}
	if hit {
		r.count++
		if len(r.skipped) < maxReportedDefaults {
			if isDir {
				shown += "/"
			}
			r.skipped = append(r.skipped, shown)
		}
	}
	return hit
}

// report is the result's account of what the defaults skipped, or nil.
func (r *defaultRules) report() *defaultsReport {
	if r == nil || r.count == 0 {
		return nil
	}
	return &defaultsReport{Skipped: r.skipped, Count: r.count,
		Note: "skipped by the default excludes; pass `exclude: []` to search them, or an `exclude` list of your own"}
}

type defaultsReport struct {
	Skipped []string `json:"skipped"`
	Count   int      `json:"count"`
	Note    string   `json:"note"`
}

// trackedDirs knows the directories of a repository's index, loaded on the
// first question: most walks never meet a default-excluded name that the
// repository's own ignore rules have not already skipped.
type trackedDirs struct {
	root string
	once sync.Once
	dirs map[string]bool
}

// holds reports whether the index tracks a file below dir (relative to the
// repository's top).
func (t *trackedDirs) holds(dir string) bool {
	if t == nil {
		return false
	}
	t.once.Do(t.load)
	return t.dirs[dir]
}

func (t *trackedDirs) load() {
	t.dirs = map[string]bool{}
	gitDir, _, err := gitrepo.Dirs(t.root)
	if err != nil {
		return
	}
	f, err := os.Open(filepath.Join(gitDir, "index"))
	if err != nil {
		return
	}
	defer f.Close()
	var idx index.Index
	if index.NewDecoder(bufio.NewReader(f)).Decode(&idx) != nil {
		return
	}
	for _, e := range idx.Entries {
		for d := path.Dir(e.Name); d != "." && !t.dirs[d]; d = path.Dir(d) {
			t.dirs[d] = true
		}
	}
}
