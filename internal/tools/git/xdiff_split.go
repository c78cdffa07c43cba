package git

// splitter runs xdiff's divide-and-conquer Myers over the lines that
// cleanupRecords kept. kvdf and kvdb hold the furthest-reaching forward and
// backward paths per diagonal, indexed by diagonal + off.
type splitter struct {
	x1, x2     *xfile
	kvdf, kvdb []int
	off        int
	mxcost     int
}

// split is where a box is cut in two, and whether each half must be
// searched for a minimal diff.
type split struct {
	i1, i2       int
	minLo, minHi bool
}

func (s *splitter) fwd(d int) int      { return s.kvdf[d+s.off] }
func (s *splitter) setF(d, v int)      { s.kvdf[d+s.off] = v }
func (s *splitter) bwd(d int) int      { return s.kvdb[d+s.off] }
func (s *splitter) setB(d, v int)      { s.kvdb[d+s.off] = v }
func (s *splitter) eq(i1, i2 int) bool { return s.x1.rha[i1] == s.x2.rha[i2] }

// compare marks the changed lines of the box [off1,lim1) x [off2,lim2).
func (s *splitter) compare(off1, lim1, off2, lim2 int, needMin bool) {
	for off1 < lim1 && off2 < lim2 && s.eq(off1, off2) {
		off1++
		off2++
	}
	for off1 < lim1 && off2 < lim2 && s.eq(lim1-1, lim2-1) {
		lim1--
		lim2--
	}
	switch {
	case off1 == lim1:
		for ; off2 < lim2; off2++ {
			s.x2.set(s.x2.rindex[off2], true)
		}
	case off2 == lim2:
		for ; off1 < lim1; off1++ {
			s.x1.set(s.x1.rindex[off1], true)
		}
	default:
		sp := s.split(off1, lim1, off2, lim2, needMin)
		s.compare(off1, sp.i1, off2, sp.i2, sp.minLo)
		s.compare(sp.i1, lim1, sp.i2, lim2, sp.minHi)
	}
}

// split finds the middle snake of the box, searching forward and backward
// at once; past heurMinCost it settles for a long enough snake, past
// mxcost for the furthest-reaching path.
func (s *splitter) split(off1, lim1, off2, lim2 int, needMin bool) split {
	dmin, dmax := off1-lim2, lim1-off2
	fmid, bmid := off1-off2, lim1-lim2
	odd := (fmid-bmid)&1 != 0
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	s.setF(fmid, off1)
	s.setB(bmid, lim1)
	for ec := 1; ; ec++ {
		gotSnake := false
		if fmin > dmin {
			fmin--
			s.setF(fmin-1, -1)
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			s.setF(fmax+1, -1)
		} else {
			fmax--
		}
		for d := fmax; d >= fmin; d -= 2 {
			var i1 int
			if s.fwd(d-1) >= s.fwd(d+1) {
				i1 = s.fwd(d-1) + 1
			} else {
				i1 = s.fwd(d + 1)
			}
			prev := i1
			i2 := i1 - d
			for i1 < lim1 && i2 < lim2 && s.eq(i1, i2) {
				i1++
				i2++
			}
			if i1-prev > snakeCnt {
				gotSnake = true
			}
			s.setF(d, i1)
			if odd && bmin <= d && d <= bmax && s.bwd(d) <= i1 {
				return split{i1, i2, true, true}
			}
		}
		if bmin > dmin {
			bmin--
			s.setB(bmin-1, lineMax)
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			s.setB(bmax+1, lineMax)
		} else {
			bmax--
		}
		for d := bmax; d >= bmin; d -= 2 {
			var i1 int
			if s.bwd(d-1) < s.bwd(d+1) {
				i1 = s.bwd(d - 1)
			} else {
				i1 = s.bwd(d+1) - 1
			}
			prev := i1
			i2 := i1 - d
			for i1 > off1 && i2 > off2 && s.eq(i1-1, i2-1) {
				i1--
				i2--
			}
			if prev-i1 > snakeCnt {
				gotSnake = true
			}
			s.setB(d, i1)
			if !odd && fmin <= d && d <= fmax && i1 <= s.fwd(d) {
				return split{i1, i2, true, true}
			}
		}
		if needMin {
			continue
		}
		if gotSnake && ec > heurMinCost {
			if sp, ok := s.goodSnake(ec, off1, lim1, off2, lim2, fmin, fmax, bmin, bmax, fmid, bmid); ok {
				return sp
			}
		}
		if ec >= s.mxcost {
			return s.furthest(off1, lim1, off2, lim2, fmin, fmax, bmin, bmax)
		}
	}
}

// goodSnake looks for a diagonal that has come far enough, ending in a
// snake of at least snakeCnt lines, to cut there without a minimal search.
func (s *splitter) goodSnake(ec, off1, lim1, off2, lim2, fmin, fmax, bmin, bmax, fmid, bmid int) (split, bool) {
	best, sp := 0, split{}
	for d := fmax; d >= fmin; d -= 2 {
		dd := abs(d - fmid)
		i1 := s.fwd(d)
		i2 := i1 - d
		v := (i1 - off1) + (i2 - off2) - dd
		if v > kHeur*ec && v > best && off1+snakeCnt <= i1 && i1 < lim1 && off2+snakeCnt <= i2 && i2 < lim2 {
			for k := 1; s.eq(i1-k, i2-k); k++ {
				if k == snakeCnt {
					best, sp = v, split{i1: i1, i2: i2}
					break
				}
			}
		}
	}
	if best > 0 {
		sp.minLo, sp.minHi = true, false
		return sp, true
	}
	for d := bmax; d >= bmin; d -= 2 {
		dd := abs(d - bmid)
		i1 := s.bwd(d)
		i2 := i1 - d
		v := (lim1 - i1) + (lim2 - i2) - dd
		if v > kHeur*ec && v > best && off1 < i1 && i1 <= lim1-snakeCnt && off2 < i2 && i2 <= lim2-snakeCnt {
			for k := 0; s.eq(i1+k, i2+k); k++ {
				if k == snakeCnt-1 {
					best, sp = v, split{i1: i1, i2: i2}
					break
				}
			}
		}
	}
	if best > 0 {
		sp.minLo, sp.minHi = false, true
		return sp, true
	}
	return split{}, false
}

// furthest gives up on optimality and cuts at the furthest-reaching path.
func (s *splitter) furthest(off1, lim1, off2, lim2, fmin, fmax, bmin, bmax int) split {
	fbest, fbest1 := -1, -1
	for d := fmax; d >= fmin; d -= 2 {
		i1 := min(s.fwd(d), lim1)
		i2 := i1 - d
		if lim2 < i2 {
			i1, i2 = lim2+d, lim2
		}
		if fbest < i1+i2 {
			fbest, fbest1 = i1+i2, i1
		}
	}
	bbest, bbest1 := lineMax, lineMax
	for d := bmax; d >= bmin; d -= 2 {
		i1 := max(off1, s.bwd(d))
		i2 := i1 - d
		if i2 < off2 {
			i1, i2 = off2+d, off2
		}
		if i1+i2 < bbest {
			bbest, bbest1 = i1+i2, i1
		}
	}
	if (lim1+lim2)-bbest < fbest-(off1+off2) {
		return split{i1: fbest1, i2: fbest - fbest1, minLo: true, minHi: false}
	}
	return split{i1: bbest1, i2: bbest - bbest1, minLo: false, minHi: true}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
