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
// is what the result shows as stdout.
type goParser struct {
	text     *headText
	c        counts
	testOut  map[goTest]*tailBuf // running or failed tests
	pkgOut   map[string]*tailBuf
	buildOut map[string]*tailBuf
	failed   []goTest
	pkgFails map[string]bool // packages with a failing test
}

func newGoParser() *goParser {
	return &goParser{text: newHeadText(testStreamChars), testOut: map[goTest]*tailBuf{},
		pkgOut: map[string]*tailBuf{}, buildOut: map[string]*tailBuf{}, pkgFails: map[string]bool{}}
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
	case "pass", "skip":
		if ev.Test == "" {
			return
		}
		g.c.Known = true
		if ev.Action == "pass" {
			g.c.Passed++
		} else {
			g.c.Skipped++
		}
		delete(g.testOut, key)
	case "fail":
		g.c.Known = true
		if ev.Test != "" {
			g.c.Failed++
			g.failed = append(g.failed, key)
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

// report lists failing tests, leaving out parents whose failure is only
// that a subtest failed.
func (g *goParser) report() counts {
	c := g.c
	var tests []failure
	for _, t := range g.failed {
		if hasFailingSubtest(g.failed, t) {
			continue
		}
		tests = append(tests, failure{Name: t.name, Package: t.pkg, Output: bufT(g.testOut, t).String()})
	}
	c.Failures = append(tests, c.Failures...)
	return c
}

func hasFailingSubtest(failed []goTest, parent goTest) bool {
	for _, t := range failed {
		if t.pkg == parent.pkg && strings.HasPrefix(t.name, parent.name+"/") {
			return true
		}
	}
	return false
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
