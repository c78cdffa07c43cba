package git

// group is a run [start,end) of changed lines; start == end is the empty
// group between two unchanged lines.
type group struct{ start, end int }

func groupInit(f *xfile) group {
	g := group{}
	for f.changed(g.end) {
		g.end++
	}
	return g
}

func (g *group) next(f *xfile) bool {
	if g.end == len(f.recs) {
		return false
	}
	g.start = g.end + 1
	g.end = g.start
	for f.changed(g.end) {
		g.end++
	}
	return true
}

func (g *group) previous(f *xfile) bool {
	if g.start == 0 {
		return false
	}
	g.end = g.start - 1
	g.start = g.end
	for f.changed(g.start - 1) {
		g.start--
	}
	return true
}

func (g *group) slideDown(f *xfile) bool {
	if g.end < len(f.recs) && f.ha[g.start] == f.ha[g.end] {
		f.set(g.start, false)
		f.set(g.end, true)
		g.start++
		g.end++
		for f.changed(g.end) {
			g.end++
		}
		return true
	}
	return false
}

func (g *group) slideUp(f *xfile) bool {
	if g.start > 0 && f.ha[g.start-1] == f.ha[g.end-1] {
		g.start--
		g.end--
		f.set(g.start, true)
		f.set(g.end, false)
		for f.changed(g.start - 1) {
			g.start--
		}
		return true
	}
	return false
}

// compact moves each group of changes in f to git's canonical place:
// merged with any group it can slide into, then aligned with a change in
// the other file o if possible, else at the position the indent heuristic
// scores best. The other file's group cursor is kept in step.
func compact(f, o *xfile) {
	g, go_ := groupInit(f), groupInit(o)
	for {
		if g.end != g.start {
			compactGroup(f, o, &g, &go_)
		}
		if !g.next(f) {
			return
		}
		go_.next(o)
	}
}

func compactGroup(f, o *xfile, g, go_ *group) {
	var earliestEnd, endMatchingOther, size int
	for {
		size = g.end - g.start
		endMatchingOther = -1
		for g.slideUp(f) {
			go_.previous(o)
		}
		earliestEnd = g.end
		if go_.end > go_.start {
			endMatchingOther = g.end
		}
		for g.slideDown(f) {
			go_.next(o)
			if go_.end > go_.start {
				endMatchingOther = g.end
			}
		}
		if size == g.end-g.start {
			break
		}
	}
	switch {
	case g.end == earliestEnd:
	case endMatchingOther != -1:
		for go_.end == go_.start {
			g.slideUp(f)
			go_.previous(o)
		}
	default:
		shift := max(earliestEnd, g.end-size-1, g.end-indentMaxSliding)
		bestShift := -1
		var best splitScore
		for ; shift <= g.end; shift++ {
			var sc splitScore
			sc.add(measureSplit(f, shift))
			sc.add(measureSplit(f, shift-size))
			if bestShift == -1 || sc.cmp(best) <= 0 {
				best, bestShift = sc, shift
			}
		}
		for g.end > bestShift {
			g.slideUp(f)
			go_.previous(o)
		}
	}
}

// splitMeasure describes the lines around a split point for the indent
// heuristic.
type splitMeasure struct {
	endOfFile             bool
	indent                int // of the line after the split; -1 if blank
	preBlank, preIndent   int
	postBlank, postIndent int
}

func lineIndent(l string) int {
	n := 0
	for i := 0; i < len(l); i++ {
		switch c := l[i]; c {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		case '\n', '\r', '\v', '\f':
		default:
			return n
		}
		if n >= maxIndent {
			return maxIndent
		}
	}
	return -1
}

func measureSplit(f *xfile, split int) splitMeasure {
	m := splitMeasure{indent: -1, preIndent: -1, postIndent: -1}
	if split >= len(f.recs) {
		m.endOfFile = true
	} else {
		m.indent = lineIndent(f.recs[split])
	}
	for i := split - 1; i >= 0; i-- {
		if m.preIndent = lineIndent(f.recs[i]); m.preIndent != -1 {
			break
		}
		if m.preBlank++; m.preBlank == maxBlanks {
			m.preIndent = 0
			break
		}
	}
	for i := split + 1; i < len(f.recs); i++ {
		if m.postIndent = lineIndent(f.recs[i]); m.postIndent != -1 {
			break
		}
		if m.postBlank++; m.postBlank == maxBlanks {
			m.postIndent = 0
			break
		}
	}
	return m
}

type splitScore struct{ effectiveIndent, penalty int }

func (s *splitScore) add(m splitMeasure) {
	if m.preIndent == -1 && m.preBlank == 0 {
		s.penalty += startOfFilePenalty
	}
	if m.endOfFile {
		s.penalty += endOfFilePenalty
	}
	postBlank := 0
	if m.indent == -1 {
		postBlank = 1 + m.postBlank
	}
	totalBlank := m.preBlank + postBlank
	s.penalty += totalBlankWeight*totalBlank + postBlankWeight*postBlank
	indent := m.indent
	if indent == -1 {
		indent = m.postIndent
	}
	anyBlanks := totalBlank != 0
	s.effectiveIndent += indent
	pick := func(withBlank, without int) int {
		if anyBlanks {
			return withBlank
		}
		return without
	}
	switch {
	case indent == -1, m.preIndent == -1, indent == m.preIndent:
	case indent > m.preIndent:
		s.penalty += pick(relIndentBlank, relIndentPenalty)
	case m.postIndent != -1 && m.postIndent > indent:
		s.penalty += pick(relOutdentBlank, relOutdentPenalty)
	default:
		s.penalty += pick(relDedentBlank, relDedentPenalty)
	}
}

func (s splitScore) cmp(o splitScore) int {
	c := 0
	if s.effectiveIndent > o.effectiveIndent {
		c = 1
	} else if s.effectiveIndent < o.effectiveIndent {
		c = -1
	}
	return indentWeight*c + s.penalty - o.penalty
}
