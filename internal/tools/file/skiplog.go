package file

import (
	"errors"
	"io/fs"
	"sort"
	"sync"
)

// maxSkipListed is how many skipped paths a search result names; the rest
// are counted.
const maxSkipListed = 20

// Why a search did not look at a file or folder, as the result says it.
const (
	skipBinary     = "binary (holds a NUL byte), not searched"
	skipTooLarge   = "over 10 MiB, not searched"
	skipUnreadable = "unreadable, not searched"
)

// skipLog is a search's account of the files and folders it skipped for a
// reason other than the ignore files and globs the call chose (CONTRACT.md
// §6.2): every one counted, the first maxSkipListed in path order named
// with why. Secret files and folders are counted apart and never named: a
// search shows nothing of them (list shows their names). Workers add to it
// in any order; the kept names are the smallest paths, so a result is the
// same on every run. A nil log records nothing.
type skipLog struct {
	rel    func(abs string) string // the name a result gives a path
	mu     sync.Mutex
	list   []skippedPath
	total  int
	secret int // secret folders not entered
}

// skippedPath is one named skip.
type skippedPath struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func newSkipLog(rel func(string) string) *skipLog { return &skipLog{rel: rel} }

// add records abs (a folder when dir) skipped for reason.
func (l *skipLog) add(abs string, dir bool, reason string) {
	if l == nil {
		return
	}
	p := l.rel(abs)
	if dir {
		p += "/"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total++
	l.list = append(l.list, skippedPath{p, reason})
	if len(l.list) >= 4*maxSkipListed {
		l.trim()
	}
}

// addSecret counts a secret folder the walk did not enter.
func (l *skipLog) addSecret() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.secret++
}

// secretDirs is how many secret folders the walk did not enter.
func (l *skipLog) secretDirs() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.secret
}

// addDirError records a folder the walk could not read.
func (l *skipLog) addDirError(abs string, err error) {
	reason := "unreadable directory, not entered"
	var pe *fs.PathError
	if errors.As(err, &pe) {
		reason += ": " + pe.Err.Error()
	}
	l.add(abs, true, reason)
}

// trim keeps the maxSkipListed smallest paths; l.mu is held.
func (l *skipLog) trim() {
	sort.Slice(l.list, func(i, j int) bool { return l.list[i].Path < l.list[j].Path })
	l.list = l.list[:min(len(l.list), maxSkipListed)]
}

// report is the named skips and how many more there were; nil, 0 when
// nothing was skipped.
func (l *skipLog) report() ([]skippedPath, int) {
	if l == nil {
		return nil, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.total == 0 {
		return nil, 0
	}
	l.trim()
	return append([]skippedPath(nil), l.list...), l.total - len(l.list)
}
