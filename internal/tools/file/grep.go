package file

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// matcher finds the lines of a buffer that a pattern matches. Lines are
// matched one at a time (so `^`, `$` and negated classes never span lines)
// with a trailing '\r' removed. When every match must contain one of a few
// literals, the buffer is first scanned for them with bytes.Index, and the
// regex runs only on the lines that contain one.
type matcher struct {
	re   *regexp.Regexp
	lits [][]byte // every match contains one of these; nil when unknown
	fold bool     // lits are lowercase ASCII, searched in a lowered copy
	pure bool     // a line matches exactly when it contains lits[0]
	// minLen is a lower bound on a match's length in bytes: shorter lines
	// are skipped without running the regex.
	minLen int
	class  *byteSet // without lits: a byte every match holds, or nil
}

// foldTraps are the non-ASCII runes Go's case folding equates with ASCII
// letters (KELVIN SIGN ~ k, LONG S ~ s). A buffer holding one cannot use the
// ASCII-lowercase prefilter.
var foldTraps = [][]byte{[]byte("\u212A"), []byte("\u017F")}

// maxLits bounds the alternatives a prefilter scans for.
const maxLits = 12

// newMatcher compiles pattern (already carrying any (?i) prefix).
func newMatcher(pattern string) (*matcher, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	m := &matcher{re: re}
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return m, nil
	}
	parsed = parsed.Simplify()
	m.minLen = minWidth(parsed)
	set := requiredLiterals(parsed)
	if len(set.lits) == 0 {
		m.class = requiredBytes(parsed)
		return m, nil
	}
	for _, l := range set.lits {
		b := []byte(string(l))
		if set.fold {
			// ASCII only, as the haystack is lowered: non-ASCII runes are
			// spelt out by foldVariants, and a case-sensitive one must stay.
			b = asciiLower(nil, b)
		}
		if !slices.ContainsFunc(m.lits, func(x []byte) bool { return bytes.Equal(x, b) }) {
			m.lits = append(m.lits, b)
		}
	}
	m.fold = set.fold
	core := parsed
	for core.Op == syntax.OpCapture {
		core = core.Sub[0]
	}
	// A literal holding a line break never matches inside one line, and one
	// holding '\r' may sit in the stripped line ending: let the regex decide.
	m.pure = core.Op == syntax.OpLiteral && set.exact && !slices.ContainsFunc(m.lits, func(l []byte) bool {
		return bytes.ContainsAny(l, "\r\n")
	})
	return m, nil
}

// litSet is a set of literals one of which every match contains.
type litSet struct {
	lits  [][]rune
	fold  bool
	exact bool // a string matches the literal it came from exactly when it contains one of lits
}

// score ranks prefilters: the shortest member bounds how selective the set
// is. An empty set scores 0.
func (s litSet) score() int {
	n := 0
	for i, l := range s.lits {
		if i == 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

// requiredLiterals finds literals every match of re contains: in a
// concatenation the best of its parts, in an alternation one from each
// branch.
func requiredLiterals(re *syntax.Regexp) litSet {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0 && hasLetter(re.Rune)
		if !fold {
			return litSet{lits: [][]rune{re.Rune}, exact: true}
		}
		// The prefilter lowers the haystack's ASCII only (and bails out on
		// the two non-ASCII runes that fold to ASCII letters, foldTraps), so
		// a folded literal's non-ASCII runes are spelt out: every
		// combination of their case-fold orbits (`ǅ` → Ǆ ǅ ǆ), or when those
		// are too many, its longest ASCII run alone.
		if vs := foldVariants(re.Rune, maxLits); vs != nil {
			return litSet{lits: vs, fold: true, exact: true}
		}
		if w := foldWindow(re.Rune); len(w) > 0 {
			return litSet{lits: foldVariants(w, maxLits), fold: true}
		}
		return litSet{}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var best litSet
		for _, sub := range re.Sub {
			c := requiredLiterals(sub)
			if c.score() > best.score() || (c.score() == best.score() && len(c.lits) < len(best.lits)) {
				best = c
			}
		}
		return best
	case syntax.OpAlternate:
		var out litSet
		for _, sub := range re.Sub {
			c := requiredLiterals(sub)
			if len(c.lits) == 0 || len(out.lits)+len(c.lits) > maxLits {
				return litSet{}
			}
			out.lits = append(out.lits, c.lits...)
			out.fold = out.fold || c.fold
		}
		return out
	}
	return litSet{}
}

// foldVariants spells out a case-folded literal: ASCII runes as they are
// (the prefilter lowers them), each non-ASCII rune as every member of its
// simple case-fold orbit. nil when that makes more than limit literals.
func foldVariants(rs []rune, limit int) [][]rune {
	out := [][]rune{nil}
	for _, r := range rs {
		orbit := foldOrbit(r)
		if len(out)*len(orbit) > limit {
			return nil
		}
		next := make([][]rune, 0, len(out)*len(orbit))
		for _, v := range out {
			for _, o := range orbit {
				next = append(next, append(v[:len(v):len(v)], o))
			}
		}
		out = next
	}
	return out
}

// foldOrbit is r's simple case-fold orbit for the prefilter: r alone when
// ASCII (the haystack is lowered).
func foldOrbit(r rune) []rune {
	orbit := []rune{r}
	if r >= utf8.RuneSelf {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			orbit = append(orbit, f)
		}
	}
	return orbit
}

// maxWindowSpellings bounds the spellings of a window of a literal with too
// many to spell out whole, leaving room for an alternation's other branches.
const maxWindowSpellings = 4

// foldWindow is the longest run of rs whose spellings number at most
// maxWindowSpellings (`nïcöd` of `Ünïcödé`), or nil.
func foldWindow(rs []rune) []rune {
	var best []rune
	for i := range rs {
		n := 1
		for j := i; j < len(rs); j++ {
			if n *= len(foldOrbit(rs[j])); n > maxWindowSpellings {
				break
			}
			if j+1-i > len(best) {
				best = rs[i : j+1]
			}
		}
	}
	return best
}

func hasLetter(rs []rune) bool {
	for _, r := range rs {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// lineFunc receives a matching line: its bounds in buf (without the line
// break) and its 1-based number. It returns false to stop the scan.
type lineFunc func(start, end, number int) bool

// scan calls fn for each matching line of buf. lower is scratch space for
// the case-folded prefilter; scan returns it (possibly grown) for reuse.
func (m *matcher) scan(buf, lower []byte, fn lineFunc) []byte {
	if m.lits == nil {
		if m.class != nil {
			m.scanClass(buf, fn)
		} else {
			m.scanAll(buf, fn)
		}
		return lower
	}
	hay := buf
	if m.fold {
		for _, trap := range foldTraps {
			if bytes.Contains(buf, trap) {
				m.scanAll(buf, fn)
				return lower
			}
		}
		lower = asciiLower(lower[:0], buf)
		hay = lower
	}
	next := make([]int, len(m.lits)) // next occurrence of each literal at or after pos; -1: none left
	for i := range next {
		next[i] = -2
	}
	pos, counted, number := 0, 0, 1
	for pos < len(buf) {
		p := -1
		for i, lit := range m.lits {
			if next[i] == -2 || (next[i] >= 0 && next[i] < pos) {
				if j := bytes.Index(hay[pos:], lit); j >= 0 {
					next[i] = pos + j
				} else {
					next[i] = -1
				}
			}
			if next[i] >= 0 && (p < 0 || next[i] < p) {
				p = next[i]
			}
		}
		if p < 0 {
			break
		}
		start := pos + bytes.LastIndexByte(buf[pos:p], '\n') + 1
		end := len(buf)
		if j := bytes.IndexByte(buf[p:], '\n'); j >= 0 {
			end = p + j
		}
		number += bytes.Count(buf[counted:start], []byte{'\n'})
		counted = start
		if m.pure || m.re.Match(trimCR(buf[start:end])) {
			if !fn(start, trimmedEnd(buf, start, end), number) {
				return lower
			}
		}
		pos = end + 1
	}
	return lower
}

// scanAll runs the regex on every line.
func (m *matcher) scanAll(buf []byte, fn lineFunc) { m.scanLines(buf, 0, len(buf), 1, fn) }

// scanLines runs the regex on each line in buf[from:to] (from is a line
// start, number its line number) and reports whether to go on.
func (m *matcher) scanLines(buf []byte, from, to, number int, fn lineFunc) bool {
	for pos := from; pos < to; number++ {
		end := to
		if j := bytes.IndexByte(buf[pos:to], '\n'); j >= 0 {
			end = pos + j
		}
		if line := trimCR(buf[pos:end]); len(line) >= m.minLen && m.re.Match(line) {
			if !fn(pos, trimmedEnd(buf, pos, end), number) {
				return false
			}
		}
		pos = end + 1
	}
	return true
}

// minWidth is a lower bound on the bytes any match of re spans (every rune
// takes at least one byte).
func minWidth(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minWidth(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minWidth(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += minWidth(sub)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, sub := range re.Sub {
			if w := minWidth(sub); n < 0 || w < n {
				n = w
			}
		}
		return max(n, 0)
	}
	return 0
}

func trimCR(line []byte) []byte { return bytes.TrimSuffix(line, []byte{'\r'}) }

func trimmedEnd(buf []byte, start, end int) int {
	if end > start && buf[end-1] == '\r' {
		return end - 1
	}
	return end
}

// asciiLower returns buf with ASCII letters lowered in dst's storage; other
// bytes are unchanged, so offsets line up with buf. Eight bytes at a time:
// a byte gets 0x20 added when it is ASCII and in 'A'..'Z'.
func asciiLower(dst, buf []byte) []byte {
	if cap(dst) < len(buf) {
		dst = make([]byte, len(buf), len(buf)+len(buf)/4)
	}
	dst = dst[:len(buf)]
	const lo7, hi = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	i := 0
	for ; i+8 <= len(buf); i += 8 {
		w := binary.LittleEndian.Uint64(buf[i:])
		h := w & lo7
		geA := h + (0x80-'A')*0x0101010101010101 // high bit: byte >= 'A'
		gtZ := h + (0x7f-'Z')*0x0101010101010101 // high bit: byte > 'Z'
		upper := geA &^ gtZ &^ w & hi
		binary.LittleEndian.PutUint64(dst[i:], w|upper>>2)
	}
	for ; i < len(buf); i++ {
		c := buf[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	return dst
}
