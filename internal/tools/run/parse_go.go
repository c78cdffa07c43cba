package run

import (
	"encoding/json"
	"strings"
)

// goEvent is one line of `go test -json` (test2json, plus the build events
// of Go 1.24+).
type goEvent struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string
	FailedBuild string
}

type goTest struct{ pkg, name string }

// goParser counts `go test -json` results and keeps each failing test's
// output. The human-readable output (the Output fields) goes to text, which
// is what the result shows as stdout. Counts are of leaf tests (countsNote):
// a test with subtests is counted as its subtests.
type goParser struct {
	text     *headText
	c        counts
	testOut  map[goTest]*tailBuf // running or failed tests
	pkgOut   map[string]*tailBuf
	buildOut map[string]*tailBuf
	results  []goResult      // every test's final action, in order
	parents  map[goTest]bool // tests that ran a subtest
	pkgFails map[string]bool // packages with a failing test
}

type goResult struct {
	test   goTest
	action string // pass, fail or skip
}

func newGoParser() *goParser {
	return &goParser{text: newHeadText(testStreamChars), testOut: map[goTest]*tailBuf{},
		pkgOut: map[string]*tailBuf{}, buildOut: map[string]*tailBuf{}, parents: map[goTest]bool{},
		pkgFails: map[string]bool{}}
}

func (g *goParser) line(s string) {
	var ev goEvent
	if !strings.HasPrefix(s, "{") || json.Unmarshal([]byte(s), &ev) != nil {
		_, _ = g.text.Write([]byte(s + "\n"))
		return
	}
	if ev.Output != "" {
		_, _ = g.text.Write([]byte(ev.Output))
	}
	key := goTest{ev.Package, ev.Test}
	switch ev.Action {
	case "build-output":
		buf(g.buildOut, ev.ImportPath).add(ev.Output)
	case "output":
		if ev.Test != "" {
			bufT(g.testOut, key).add(ev.Output)
		} else {
			buf(g.pkgOut, ev.Package).add(ev.Output)
		}
	case "run":
		// Every prefix before a '/' may be the parent (a subtest's own
		// name can hold '/'); marking one that is not a test is harmless.
		for i := 0; i < len(ev.Test); i++ {
			if ev.Test[i] == '/' {
				g.parents[goTest{ev.Package, ev.Test[:i]}] = true
			}
		}
	case "pass", "skip":
		if ev.Test == "" {
			return
		}
		g.c.Known = true
		g.results = append(g.results, goResult{key, ev.Action})
		delete(g.testOut, key)
	case "fail":
		g.c.Known = true
		if ev.Test != "" {
			g.results = append(g.results, goResult{key, ev.Action})
			g.pkgFails[ev.Package] = true
			return
		}
		g.packageFailed(ev)
	}
}

// packageFailed records a package that failed without a failing test: a
// build failure, or a crash outside any test.
func (g *goParser) packageFailed(ev goEvent) {
	if ev.FailedBuild != "" {
		g.c.Failures = append(g.c.Failures, failure{Name: ev.Package + " [build failed]", Package: ev.Package,
			Output: buf(g.buildOut, ev.FailedBuild).String()})
		return
	}
	if !g.pkgFails[ev.Package] {
		g.c.Failures = append(g.c.Failures, failure{Name: ev.Package, Package: ev.Package,
			Output: buf(g.pkgOut, ev.Package).String()})
	}
}

// report counts the leaf tests and lists the failing ones, then the
// packages that failed outside any test, each of which counts as one failure.
func (g *goParser) report() counts {
	c := g.c
	var tests []failure
	for _, r := range g.results {
		if g.parents[r.test] {
			continue // its result is its subtests'
		}
		switch r.action {
		case "pass":
			c.Passed++
		case "skip":
			c.Skipped++
		default:
			c.Failed++
			tests = append(tests, failure{Name: r.test.name, Package: r.test.pkg, Output: bufT(g.testOut, r.test).String()})
		}
	}
	c.Failed += len(c.Failures)
	c.Failures = append(tests, c.Failures...)
	return c
}

func buf(m map[string]*tailBuf, k string) *tailBuf {
	if m[k] == nil {
		m[k] = &tailBuf{limit: excerptBytes}
	}
	return m[k]
}

func bufT(m map[goTest]*tailBuf, k goTest) *tailBuf {
	if m[k] == nil {
		m[k] = &tailBuf{limit: excerptBytes}
	}
	return m[k]
}
