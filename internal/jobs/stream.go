package jobs

// Retention per stream: the first headKeep bytes ever written stay exact, and
// so do the most recent tailKeep bytes; anything between is dropped (and
// counted) so a chatty job cannot grow without bound. Both windows are far
// larger than what one tool result shows (bound.go), so results are exact for
// all but enormous outputs.
const (
	headKeep = 64 << 10
	tailKeep = 1 << 20
)

// stream is one captured output stream. It is not safe for concurrent use;
// the owning Job's mutex guards it.
type stream struct {
	head      []byte
	tail      []byte
	tailStart int64 // absolute offset of tail[0]
	total     int64 // bytes ever written
}

func (s *stream) write(p []byte) {
	s.total += int64(len(p))
	if room := headKeep - len(s.head); room > 0 {
		n := min(room, len(p))
		s.head = append(s.head, p[:n]...)
		p = p[n:]
		s.tailStart = int64(len(s.head))
	}
	if len(p) == 0 {
		return
	}
	s.tail = append(s.tail, p...)
	// Compact lazily (at twice the window) so the copy is amortised.
	if len(s.tail) > 2*tailKeep {
		drop := len(s.tail) - tailKeep
		s.tail = append([]byte(nil), s.tail[drop:]...)
		s.tailStart += int64(drop)
	}
}

// Span is a copy of a stream's bytes from some offset to its end. Hole bytes
// between Front and Back were produced but are no longer retained.
type Span struct {
	Front []byte
	Hole  int64
	Back  []byte
}

// Len is the number of bytes the stream produced over the span.
func (s Span) Len() int64 { return int64(len(s.Front)) + s.Hole + int64(len(s.Back)) }

// from returns a copy of the bytes from offset off to the end.
func (s *stream) from(off int64) Span {
	off = max(0, min(off, s.total))
	headLen := int64(len(s.head))
	switch {
	case off < headLen:
		return Span{
			Front: clone(s.head[off:]),
			Hole:  s.tailStart - headLen,
			Back:  clone(s.tail),
		}
	case off < s.tailStart:
		return Span{Hole: s.tailStart - off, Back: clone(s.tail)}
	default:
		return Span{Front: clone(s.tail[off-s.tailStart:])}
	}
}

// last returns a copy of at most n trailing bytes.
func (s *stream) last(n int) []byte {
	sp := s.from(s.total - int64(n))
	if sp.Hole > 0 {
		return sp.Back
	}
	return append(sp.Front, sp.Back...)
}

func clone(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}
