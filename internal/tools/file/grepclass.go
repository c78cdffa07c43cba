package file

import (
	"bytes"
	"encoding/binary"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// byteSet is a prefilter for patterns without a required literal: every
// match holds a byte of the set (the first byte of some rune it must
// contain), so lines without one are skipped without running the regex. It
// is used only when the set has few ASCII bytes (`\p{Greek}+`, `日本|한국`,
// `[αβγ]`): for `[a-z]+` nearly every line would pass anyway.
type byteSet struct {
	in       [256]bool
	hasASCII bool
}

// maxClassASCII is how many ASCII bytes a useful set may hold.
const maxClassASCII = 12

// requiredBytes finds the byte set of re, or nil when none is useful.
func requiredBytes(re *syntax.Regexp) *byteSet {
	s := bytesOf(re)
	if s == nil {
		return nil
	}
	n := 0
	for c := 0; c < utf8.RuneSelf; c++ {
		if s.in[c] {
			n++
			s.hasASCII = true
		}
	}
	if n > maxClassASCII {
		return nil
	}
	return s
}

// bytesOf is the set of first bytes of the runes every match of re must
// contain one of, or nil when there is none.
func bytesOf(re *syntax.Regexp) *byteSet {
	switch re.Op {
	case syntax.OpLiteral:
		s := &byteSet{}
		s.addRune(re.Rune[0], re.Flags&syntax.FoldCase != 0)
		return s
	case syntax.OpCharClass:
		s := &byteSet{}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			s.addRange(re.Rune[i], re.Rune[i+1])
		}
		return s
	case syntax.OpCapture, syntax.OpPlus:
		return bytesOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return bytesOf(re.Sub[0])
		}
	case syntax.OpConcat:
		var best *byteSet
		for _, sub := range re.Sub {
			if s := bytesOf(sub); s != nil && (best == nil || s.weight() < best.weight()) {
				best = s
			}
		}
		return best
	case syntax.OpAlternate:
		out := &byteSet{}
		for _, sub := range re.Sub {
			s := bytesOf(sub)
			if s == nil {
				return nil
			}
			for c, ok := range s.in {
				out.in[c] = out.in[c] || ok
			}
		}
		return out
	}
	return nil
}

// weight ranks sets: an ASCII byte is far more common in source than a
// UTF-8 lead byte.
func (s *byteSet) weight() int {
	w := 0
	for c, ok := range s.in {
		if ok {
			w++
			if c < utf8.RuneSelf {
				w += 100
			}
		}
	}
	return w
}

func (s *byteSet) addRune(r rune, fold bool) {
	var b [utf8.UTFMax]byte
	utf8.EncodeRune(b[:], r)
	s.in[b[0]] = true
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			utf8.EncodeRune(b[:], f)
			s.in[b[0]] = true
		}
	}
}

// addRange adds the first bytes of the runes lo..hi: UTF-8 lead bytes grow
// with the rune, so they are the bytes from lo's to hi's.
func (s *byteSet) addRange(lo, hi rune) {
	var a, z [utf8.UTFMax]byte
	utf8.EncodeRune(a[:], lo)
	utf8.EncodeRune(z[:], min(hi, unicode.MaxRune))
	for c := int(a[0]); c <= int(z[0]); c++ {
		s.in[c] = true
	}
}

// next is the index of the first byte of buf[from:] in the set, or -1.
// Without ASCII members, eight bytes at a time are skipped while none has
// its high bit set.
func (s *byteSet) next(buf []byte, from int) int {
	i := from
	if !s.hasASCII {
		for ; i+8 <= len(buf); i += 8 {
			if binary.LittleEndian.Uint64(buf[i:])&0x8080808080808080 != 0 {
				break
			}
		}
	}
	for ; i < len(buf); i++ {
		if s.in[buf[i]] {
			return i
		}
	}
	return -1
}

// scanClass calls fn for each matching line of buf, running the regex only
// on lines holding a byte of the set.
func (m *matcher) scanClass(buf []byte, fn lineFunc) {
	pos, counted, number := 0, 0, 1
	for pos < len(buf) {
		p := m.class.next(buf, pos)
		if p < 0 {
			return
		}
		start := pos + bytes.LastIndexByte(buf[pos:p], '\n') + 1
		end := end0(buf, p)
		number += bytes.Count(buf[counted:start], []byte{'\n'})
		counted = start
		if line := trimCR(buf[start:end]); len(line) >= m.minLen && m.re.Match(line) {
			if !fn(start, trimmedEnd(buf, start, end), number) {
				return
			}
		}
		pos = end + 1
	}
}
