package run

import (
	"strconv"
	"strings"

	"github.com/codewhale/codewhale/internal/lazyre"
)

// textParser recognises the summaries and failure lines of the common text
// test reporters: cargo/libtest, pytest, TAP (node --test), Jest, Vitest,
// Mocha and plain `go test`. Counts from every recognised summary add up,
// so a Makefile that runs two suites reports both.
type textParser struct {
	c        counts
	names    []string          // failing tests, in order
	seen     map[string]bool   //
	excerpts map[string]string // name (or pytest section title) -> output

	capKey  string // the excerpt being captured, if any
	capBuf  *tailBuf
	capEnds func(string) bool

	pyHeader   bool     // inside pytest's FAILURES or ERRORS section
	subtests   []string // TAP subtest names by nesting level
	tapPending string   // failing TAP test awaiting its YAML block
	tapIndent  int
	// TAP is counted from its result lines, leaves only (countsNote):
	// tapChild[l] says a result at level l was seen since the last result
	// one level up, which makes that one a parent.
	tapChild   []bool
	tapLeaves  counts // from result lines
	tapSummary counts // from "# pass N" lines, used when no result line was seen
	tapParents map[string]bool
}

func newTextParser() *textParser {
	return &textParser{seen: map[string]bool{}, excerpts: map[string]string{}, tapParents: map[string]bool{}}
}

var (
	reCargoResult = lazyre.New(`^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored`)
	reCargoFail   = lazyre.New(`^test (.+?) \.\.\. FAILED$`) // doc tests: "src/lib.rs - add (line 3)"
	reCargoOut    = lazyre.New(`^---- (.+?) stdout ----$`)
	rePySummary   = lazyre.New(`^=+ (.*\d+ (?:passed|failed|skipped|error|errors|xfailed|xpassed|deselected|warnings?|no tests ran).*) in [\d.]+s.* =+$`)
	rePySection   = lazyre.New(`^=+ (FAILURES|ERRORS) =+$`)
	rePyHeader    = lazyre.New(`^_{3,} (.+?) _{3,}$`)
	rePyFail      = lazyre.New(`^(FAILED|ERROR) (\S+::\S+|\S+\.py)(?: - .*)?$`)
	reTapSubtest  = lazyre.New(`^(\s*)# Subtest: (.+)$`)
	reTapResult   = lazyre.New(`^(\s*)(not ok|ok) \d+ - (.+?)(?: # (?i:(SKIP|TODO)).*)?$`)
	reTapCount    = lazyre.New(`^# (pass|fail|skipped|todo|cancelled) (\d+)$`)
	reJestTests   = lazyre.New(`^Tests:\s+(.*\d+ total.*)$`)
	reJestFail    = lazyre.New(`^\s*● (.+)$`)
	reVitestTests = lazyre.New(`^\s*Tests\s+(.*\(\d+\))\s*$`)
	reVitestFail  = lazyre.New(`^\s*FAIL\s+(.+ > .+)$`)
	reMocha       = lazyre.New(`^\s+(\d+) (passing|failing|pending)\b`)
	reGoTest      = lazyre.New(`^\s*--- (PASS|FAIL|SKIP): (\S+)`)
	reCount       = lazyre.New(`(\d+) (passed|failed|skipped|todo|error|errors|xfailed|xpassed|pending)`)
)

func (p *textParser) line(s string) {
	if p.capEnds != nil {
		if !p.capEnds(s) {
			p.capBuf.add(s + "\n")
			return
		}
		p.endCapture()
	}
	if p.tapPending != "" && p.tapYAML(s) {
		return
	}
	switch {
	case p.cargo(s), p.pytest(s), p.tap(s), p.jest(s), p.vitest(s), p.mocha(s), p.goText(s):
	}
}

func (p *textParser) fail(name string) {
	if !p.seen[name] {
		p.seen[name] = true
		p.names = append(p.names, name)
	}
}

func (p *textParser) capture(key string, ends func(string) bool) {
	p.capKey, p.capBuf, p.capEnds = key, &tailBuf{limit: excerptBytes}, ends
}

func (p *textParser) endCapture() {
	if p.capKey != "" {
		p.excerpts[p.capKey] = strings.TrimRight(p.capBuf.String(), "\n")
	}
	p.capKey, p.capBuf, p.capEnds = "", nil, nil
}

func (p *textParser) add(passed, failed, skipped int) {
	p.c.Known = true
	p.c.Passed += passed
	p.c.Failed += failed
	p.c.Skipped += skipped
}

func (p *textParser) cargo(s string) bool {
	if m := reCargoResult().FindStringSubmatch(s); m != nil {
		p.add(atoi(m[1]), atoi(m[2]), atoi(m[3]))
		return true
	}
	if m := reCargoFail().FindStringSubmatch(s); m != nil {
		p.fail(m[1])
		return true
	}
	if m := reCargoOut().FindStringSubmatch(s); m != nil {
		p.capture(m[1], func(l string) bool { return l == "failures:" || strings.HasPrefix(l, "---- ") })
		return true
	}
	return false
}

func (p *textParser) pytest(s string) bool {
	if m := rePySummary().FindStringSubmatch(s); m != nil {
		// Errors (setup, teardown, collection) count as failures, xfail
		// as skipped and xpass as passed (a strict xpass is reported
		// failed by pytest itself).
		c := tally(m[1])
		p.add(c["passed"]+c["xpassed"], c["failed"]+c["error"]+c["errors"], c["skipped"]+c["xfailed"])
		return true
	}
	if rePySection().MatchString(s) {
		p.pyHeader = true
		return true
	}
	if m := rePyHeader().FindStringSubmatch(s); m != nil && p.pyHeader {
		p.capture("pytest:"+m[1], func(l string) bool { return rePyHeader().MatchString(l) || strings.HasPrefix(l, "====") })
		return true
	}
	if m := rePyFail().FindStringSubmatch(s); m != nil {
		name := m[2]
		if m[1] == "ERROR" {
			name += pyErrorSuffix // one test can fail and then error in teardown: two entries
		}
		p.fail(name)
		return true
	}
	return false
}

func (p *textParser) tap(s string) bool {
	if m := reTapSubtest().FindStringSubmatch(s); m != nil {
		level := len(m[1]) / 4
		p.subtests = append(p.subtests[:min(level, len(p.subtests))], m[2])
		return true
	}
	if m := reTapResult().FindStringSubmatch(s); m != nil {
		p.tapResult(len(m[1]), m[2] == "ok", m[3], m[4])
		return true
	}
	if m := reTapCount().FindStringSubmatch(s); m != nil {
		n := atoi(m[2])
		p.tapSummary.Known = true
		switch m[1] {
		case "pass":
			p.tapSummary.Passed += n
		case "fail", "cancelled":
			p.tapSummary.Failed += n
		default:
			p.tapSummary.Skipped += n
		}
		return true
	}
	return false
}

// tapResult counts one TAP result line: a leaf passes, fails or is skipped
// (`# SKIP`, and `# TODO` whatever its outcome); a parent's line only
// closes its subtests. A failing leaf is listed.
func (p *textParser) tapResult(indent int, ok bool, title, directive string) {
	level := indent / 4
	for len(p.tapChild) <= level+1 {
		p.tapChild = append(p.tapChild, false)
	}
	parent := p.tapChild[level+1]
	p.tapChild[level+1], p.tapChild[level] = false, true
	path := append(append([]string(nil), p.subtests[:min(level, len(p.subtests))]...), title)
	name := strings.Join(path, " > ")
	p.tapLeaves.Known = true
	switch {
	case parent:
		p.tapParents[name] = true
	case directive != "":
		p.tapLeaves.Skipped++
	case ok:
		p.tapLeaves.Passed++
	default:
		p.tapLeaves.Failed++
	}
	if !ok && directive == "" {
		if !parent {
			p.fail(name)
		}
		p.tapPending, p.tapIndent = name, indent+2
	}
}

// tapYAML consumes the diagnostic block after a failing TAP test: it is the
// test's excerpt, and tells a parent that failed only through a subtest.
func (p *textParser) tapYAML(s string) bool {
	indent := strings.Repeat(" ", p.tapIndent)
	if strings.TrimSpace(s) == "---" && strings.HasPrefix(s, indent) {
		name := p.tapPending
		p.capture(name, func(l string) bool { return strings.TrimSpace(l) == "..." })
		p.tapPending = ""
		return true
	}
	p.tapPending = ""
	return false
}

func (p *textParser) jest(s string) bool {
	if m := reJestTests().FindStringSubmatch(s); m != nil {
		c := tally(m[1])
		p.add(c["passed"], c["failed"], c["skipped"]+c["todo"])
		return true
	}
	if m := reJestFail().FindStringSubmatch(s); m != nil && !strings.HasPrefix(m[1], "Console") {
		p.fail(m[1])
		p.capture(m[1], func(l string) bool {
			return reJestFail().MatchString(l) || strings.HasPrefix(l, "Test Suites:") || strings.HasPrefix(l, "Tests:")
		})
		return true
	}
	return false
}

func (p *textParser) vitest(s string) bool {
	if m := reVitestTests().FindStringSubmatch(s); m != nil {
		c := tally(m[1])
		p.add(c["passed"], c["failed"], c["skipped"]+c["todo"])
		return true
	}
	if m := reVitestFail().FindStringSubmatch(s); m != nil {
		p.fail(m[1])
		return true
	}
	return false
}

func (p *textParser) mocha(s string) bool {
	m := reMocha().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	switch n := atoi(m[1]); m[2] {
	case "passing":
		p.add(n, 0, 0)
	case "failing":
		p.add(0, n, 0)
	default:
		p.add(0, 0, n)
	}
	return true
}

func (p *textParser) goText(s string) bool {
	m := reGoTest().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	switch m[1] {
	case "PASS":
		p.add(1, 0, 0)
	case "SKIP":
		p.add(0, 0, 1)
	default:
		p.add(0, 1, 0)
		p.fail(m[2])
		p.capture(m[2], func(l string) bool { return l == "" || l[0] != ' ' && l[0] != '\t' })
	}
	return true
}

func (p *textParser) report() counts {
	p.endCapture()
	c := p.c
	tap := p.tapLeaves
	if !tap.Known {
		tap = p.tapSummary
	}
	if tap.Known {
		c.Known = true
		c.Passed, c.Failed, c.Skipped = c.Passed+tap.Passed, c.Failed+tap.Failed, c.Skipped+tap.Skipped
	}
	c.Failures = nil
	for _, name := range p.names {
		out := p.excerpt(name)
		if p.tapParents[name] || strings.Contains(out, "failureType: 'subtestsFailed'") {
			continue // a TAP parent whose only failure is a failing subtest
		}
		c.Failures = append(c.Failures, failure{Name: name, Output: out})
	}
	return c
}

// excerpt finds a failure's output: by name, or for pytest by the section
// title, which spells a node id tests/x.py::Class::test as Class.test.
func (p *textParser) excerpt(name string) string {
	if out, ok := p.excerpts[name]; ok {
		return out
	}
	if id, ok := strings.CutSuffix(name, pyErrorSuffix); ok {
		file, test, _ := strings.Cut(id, "::")
		title := strings.ReplaceAll(test, "::", ".")
		for _, k := range []string{"ERROR at setup of " + title, "ERROR at teardown of " + title, "ERROR collecting " + file} {
			if out, ok := p.excerpts["pytest:"+k]; ok && (test != "" || strings.HasPrefix(k, "ERROR collecting")) {
				return out
			}
		}
		return ""
	}
	if _, rest, ok := strings.Cut(name, "::"); ok {
		return p.excerpts["pytest:"+strings.ReplaceAll(rest, "::", ".")]
	}
	return ""
}

// pyErrorSuffix marks a pytest ERROR entry (setup, teardown or collection).
const pyErrorSuffix = " [error]"

func tally(s string) map[string]int {
	out := map[string]int{}
	for _, m := range reCount().FindAllStringSubmatch(s, -1) {
		out[m[2]] += atoi(m[1])
	}
	return out
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
