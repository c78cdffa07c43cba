package run

import "sync"

// Failure excerpts are bounded so a suite with many failures stays
// readable.
const (
	excerptBytes = 4000
	maxFailures  = 50
)

// failure is one failing test with the end of its output.
type failure struct {
	Name    string `json:"name"`
	Package string `json:"package,omitempty"`
	Output  string `json:"output,omitempty"`
}

// counts is what a runner reported. Known is false when no summary the
// parser understands was seen, in which case the counts are left out.
type counts struct {
	Known                   bool
	Passed, Failed, Skipped int
	Failures                []failure
}

// parser turns a test runner's output lines into counts. Both streams feed
// it; implementations lock for themselves.
type parser interface {
	line(s string)
	report() counts
}

// feed is a pair of line writers (stdout, stderr) into one parser.
type feed struct {
	p        parser
	out, err *lineWriter
	mu       sync.Mutex
}

func newFeed(p parser) *feed {
	f := &feed{p: p}
	deliver := func(s string) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.p.line(s)
	}
	f.out, f.err = &lineWriter{fn: deliver}, &lineWriter{fn: deliver}
	return f
}

func (f *feed) report() counts {
	f.out.flush()
	f.err.flush()
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.p.report()
}
