package git

import "math"

// This file computes line diffs the way git's xdiff does, so that hunks
// (and the lines blame passes to parents) come out where git puts them:
// common prefix and suffix are trimmed, lines without a partner in the
// other file (and runs of over-common lines among them) are marked changed
// up front, the rest goes through divide-and-conquer Myers with git's cost
// limits, and every change group is then slid to git's canonical position
// (aligned with the other side, else by the indent heuristic).

const (
	maxEqLimit         = 1024
	simscanWindow      = 100
	kpdisRun           = 4
	maxCost            = 256
	heurMinCost        = 256
	snakeCnt           = 20
	kHeur              = 4
	lineMax            = math.MaxInt
	indentMaxSliding   = 100
	maxIndent          = 200
	maxBlanks          = 20
	startOfFilePenalty = 1
	endOfFilePenalty   = 21
	totalBlankWeight   = -30
	postBlankWeight    = 6
	relIndentPenalty   = -4
	relIndentBlank     = 10
	relOutdentPenalty  = 24
	relOutdentBlank    = 17
	relDedentPenalty   = 23
	relDedentBlank     = 17
	indentWeight       = 60
)

// xfile is one side of a diff.
type xfile struct {
	recs   []string // lines, each with its '\n' (the last may lack it)
	ha     []int    // class of each line: equal lines share a class
	rchg   []bool   // changed flags with a false sentinel at each end: rchg[i+1] is line i
	rindex []int    // lines that take part in the Myers search
	rha    []int    // their classes
}

func (f *xfile) changed(i int) bool { return f.rchg[i+1] }
func (f *xfile) set(i int, v bool)  { f.rchg[i+1] = v }

// change is one edit: chg1 lines at i1 in the old file replaced by chg2
// lines at i2 in the new one.
type change struct{ i1, i2, chg1, chg2 int }

// splitLines cuts content into records that keep their newline.
func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		if i < len(s) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// diffLines returns git's edit script from a to b.
func diffLines(a, b []string) []change {
	x1, x2 := &xfile{recs: a}, &xfile{recs: b}
	classify(x1, x2)
	cleanupRecords(x1, x2)
	kv := make([]int, 2*(len(x1.rha)+len(x2.rha)+3))
	s := &splitter{x1: x1, x2: x2, off: len(x2.rha) + 1}
	s.kvdf, s.kvdb = kv[:len(kv)/2], kv[len(kv)/2:]
	s.mxcost = max(bogosqrt(len(x1.rha)+len(x2.rha)+3), maxCost)
	s.compare(0, len(x1.rha), 0, len(x2.rha), false)
	compact(x1, x2)
	compact(x2, x1)
	return buildScript(x1, x2)
}

func classify(x1, x2 *xfile) {
	class := map[string]int{}
	id := func(l string) int {
		c, ok := class[l]
		if !ok {
			c = len(class)
			class[l] = c
		}
		return c
	}
	for _, f := range []*xfile{x1, x2} {
		f.ha = make([]int, len(f.recs))
		for i, l := range f.recs {
			f.ha[i] = id(l)
		}
		f.rchg = make([]bool, len(f.recs)+2)
	}
}

// bogosqrt is xdiff's cheap square-root bound.
func bogosqrt(n int) int {
	i := 1
	for ; n > 0; n >>= 2 {
		i <<= 1
	}
	return i
}

// cleanupRecords trims the common ends and keeps for the search only the
// lines that can match: a line absent from the other file is changed
// outright, and a line common enough to be noise is changed when it sits in
// a run dominated by such lines.
func cleanupRecords(x1, x2 *xfile) {
	n1, n2 := len(x1.recs), len(x2.recs)
	start := 0
	for start < min(n1, n2) && x1.ha[start] == x2.ha[start] {
		start++
	}
	tail := 0
	for tail < min(n1, n2)-start && x1.ha[n1-1-tail] == x2.ha[n2-1-tail] {
		tail++
	}
	count := func(f *xfile) map[int]int {
		m := map[int]int{}
		for _, h := range f.ha {
			m[h]++
		}
		return m
	}
	in1, in2 := count(x1), count(x2)
	dis1 := discards(x1, in2, start, n1-1-tail)
	dis2 := discards(x2, in1, start, n2-1-tail)
	keep(x1, dis1, start, n1-1-tail)
	keep(x2, dis2, start, n2-1-tail)
}

// discards classifies lines start..end of f by how often they occur in the
// other file: 0 never, 1 a few times, 2 very often.
func discards(f *xfile, other map[int]int, start, end int) []byte {
	dis := make([]byte, len(f.recs))
	mlim := min(bogosqrt(len(f.recs)), maxEqLimit)
	for i := start; i <= end; i++ {
		switch nm := other[f.ha[i]]; {
		case nm == 0:
			dis[i] = 0
		case nm >= mlim:
			dis[i] = 2
		default:
			dis[i] = 1
		}
	}
	return dis
}

func keep(f *xfile, dis []byte, start, end int) {
	for i := start; i <= end; i++ {
		if dis[i] == 1 || (dis[i] == 2 && !cleanMatch(dis, i, start, end)) {
			f.rindex = append(f.rindex, i)
			f.rha = append(f.rha, f.ha[i])
		} else {
			f.set(i, true)
		}
	}
}

// cleanMatch reports whether the very common line i should be discarded:
// it lies inside a run of unmatched and very common lines on both sides,
// with the very common ones not dominating.
func cleanMatch(dis []byte, i, s, e int) bool {
	s, e = max(s, i-simscanWindow), min(e, i+simscanWindow)
	rdis0, rpdis0 := 0, 1
	for r := 1; i-r >= s; r++ {
		if dis[i-r] == 0 {
			rdis0++
		} else if dis[i-r] == 2 {
			rpdis0++
		} else {
			break
		}
	}
	if rdis0 == 0 {
		return false
	}
	rdis1, rpdis1 := 0, 1
	for r := 1; i+r <= e; r++ {
		if dis[i+r] == 0 {
			rdis1++
		} else if dis[i+r] == 2 {
			rpdis1++
		} else {
			break
		}
	}
	if rdis1 == 0 {
		return false
	}
	rdis1 += rdis0
	rpdis1 += rpdis0
	return rpdis1*kpdisRun < rpdis1+rdis1
}

// buildScript turns the change flags into edits, oldest line first.
func buildScript(x1, x2 *xfile) []change {
	var out []change
	i1, i2 := len(x1.recs), len(x2.recs)
	for i1 >= 0 || i2 >= 0 {
		if x1.changed(i1-1) || x2.changed(i2-1) {
			l1, l2 := i1, i2
			for x1.changed(i1 - 1) {
				i1--
			}
			for x2.changed(i2 - 1) {
				i2--
			}
			out = append(out, change{i1: i1, i2: i2, chg1: l1 - i1, chg2: l2 - i2})
		}
		i1--
		i2--
	}
	for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	return out
}
