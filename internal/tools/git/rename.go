package git

import (
	"io"
	"path"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
)

// Rename scores are fractions of maxScore, as in git; a pair counts as a
// rename at 50% similarity (diff.renames' default threshold).
const (
	maxScore        = 60000
	minRenameScore  = 30000
	renameLimit     = 1000
	firstFewBytes   = 8000 // git's binary sniffing window
	spanHashModulus = 107927
)

// renameSide is a deleted (source) or added (destination) file.
type renameSide struct {
	path string
	hash plumbing.Hash
	mode uint32
}

// renamePair is a detected rename with its similarity score.
type renamePair struct {
	from, to renameSide
	score    int
}

// detectRenames pairs deleted with added files: identical content first
// (preferring a source with the same base name), then, for regular files,
// git's similarity estimate at 50% or more, best scores first.
func (rp *repo) detectRenames(deleted, added []renameSide) []renamePair {
	if len(deleted) == 0 || len(added) == 0 {
		return nil
	}
	sort.Slice(deleted, func(i, j int) bool { return deleted[i].path < deleted[j].path })
	sort.Slice(added, func(i, j int) bool { return added[i].path < added[j].path })
	usedSrc := make([]bool, len(deleted))
	doneDst := make([]bool, len(added))
	var pairs []renamePair
	for i, dst := range added {
		best, bestScore := -1, -1
		for j, src := range deleted {
			if usedSrc[j] || src.hash != dst.hash || (!isRegular(src.mode) || !isRegular(dst.mode)) && src.mode != dst.mode {
				continue
			}
			if s := boolInt(path.Base(src.path) == path.Base(dst.path)); s > bestScore {
				best, bestScore = j, s
			}
		}
		if best >= 0 {
			usedSrc[best], doneDst[i] = true, true
			pairs = append(pairs, renamePair{from: deleted[best], to: dst, score: maxScore})
		}
	}
	return append(pairs, rp.inexactRenames(deleted, added, usedSrc, doneDst)...)
}

func (rp *repo) inexactRenames(deleted, added []renameSide, usedSrc, doneDst []bool) []renamePair {
	type candidate struct{ src, dst, score, nameScore int }
	var cands []candidate
	var srcs, dsts []int
	for j := range deleted {
		if !usedSrc[j] && isRegular(deleted[j].mode) {
			srcs = append(srcs, j)
		}
	}
	for i := range added {
		if !doneDst[i] && isRegular(added[i].mode) {
			dsts = append(dsts, i)
		}
	}
	if len(srcs) == 0 || len(dsts) == 0 || len(srcs)*len(dsts) > renameLimit*renameLimit {
		return nil
	}
	spans := map[plumbing.Hash]*spanCount{}
	count := func(h plumbing.Hash) *spanCount {
		if spans[h] == nil {
			spans[h] = countSpans(rp.blobBytes(h))
		}
		return spans[h]
	}
	for _, i := range dsts {
		for _, j := range srcs {
			s := similarity(count(deleted[j].hash), count(added[i].hash))
			if s >= minRenameScore {
				cands = append(cands, candidate{j, i, s, boolInt(path.Base(deleted[j].path) == path.Base(added[i].path))})
			}
		}
	}
	sort.SliceStable(cands, func(a, b int) bool {
		if cands[a].score != cands[b].score {
			return cands[a].score > cands[b].score
		}
		return cands[a].nameScore > cands[b].nameScore
	})
	var pairs []renamePair
	for _, c := range cands {
		if usedSrc[c.src] || doneDst[c.dst] {
			continue
		}
		usedSrc[c.src], doneDst[c.dst] = true, true
		pairs = append(pairs, renamePair{from: deleted[c.src], to: added[c.dst], score: c.score})
	}
	return pairs
}

func isRegular(mode uint32) bool { return mode&^0o777 == 0o100000 }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// blobBytes reads a blob; a missing blob reads as empty.
func (rp *repo) blobBytes(h plumbing.Hash) []byte {
	data, _ := rp.readBlob(h)
	return data
}

// readBlob reads a blob's content; the zero hash is the empty file.
func (rp *repo) readBlob(h plumbing.Hash) ([]byte, error) {
	if h.IsZero() {
		return nil, nil
	}
	b, err := rp.git.BlobObject(h)
	if err != nil {
		return nil, err
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// spanCount is git's content fingerprint for rename scoring: bytes per
// hashed span, where a span ends at a newline or after 64 bytes.
type spanCount struct {
	size   int
	counts map[uint32]int
}

func countSpans(data []byte) *spanCount {
	text := !isBinary(data)
	sc := &spanCount{size: len(data), counts: map[uint32]int{}}
	var acc1, acc2 uint32
	n := 0
	for i := 0; i < len(data); i++ {
		c := uint32(data[i])
		if text && c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			continue
		}
		old := acc1
		acc1 = acc1<<7 ^ acc2>>25
		acc2 = acc2<<7 ^ old>>25
		acc1 += c
		n++
		if n < 64 && c != '\n' {
			continue
		}
		sc.counts[(acc1+acc2*0x61)%spanHashModulus] += n
		n, acc1, acc2 = 0, 0, 0
	}
	if n > 0 {
		sc.counts[(acc1+acc2*0x61)%spanHashModulus] += n
	}
	return sc
}

// similarity scores how much of dst's material comes from src, 0..maxScore.
func similarity(src, dst *spanCount) int {
	maxSize, baseSize := max(src.size, dst.size), min(src.size, dst.size)
	if maxSize == 0 || baseSize*(maxScore-minRenameScore) < (maxSize-baseSize)*maxScore {
		return 0
	}
	copied := 0
	for h, sn := range src.counts {
		copied += min(sn, dst.counts[h])
	}
	return copied * maxScore / maxSize
}

// isBinary is git's sniff: a NUL byte among the first 8000 bytes.
func isBinary(data []byte) bool {
	if len(data) > firstFewBytes {
		data = data[:firstFewBytes]
	}
	for _, c := range data {
		if c == 0 {
			return true
		}
	}
	return false
}
