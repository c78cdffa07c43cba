package run

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// Stream caps in results (CONTRACT.md §6.4): tests keep 40000 characters per
// stream, verifier gates 16000, each with the Git-style note.
const (
	testStreamChars = 40000
	gateStreamChars = 16000
)

// headText keeps the first limit characters of a stream that arrives in
// chunks, and counts the rest.
type headText struct {
	mu    sync.Mutex
	limit int
	buf   []byte
	chars int
}

func newHeadText(limit int) *headText { return &headText{limit: limit} }

func (h *headText) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range p {
		if utf8.RuneStart(c) {
			h.chars++
		}
	}
	if room := h.limit*utf8.UTFMax - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// capped is the kept text with the truncation note when characters were
// left out.
type capped struct {
	Text      string
	Truncated bool
	Omitted   int
}

func (h *headText) capped() capped {
	h.mu.Lock()
	defer h.mu.Unlock()
	return capText(string(h.buf), h.chars, h.limit)
}

// capText cuts s (the head of a stream of total characters) to limit
// characters with the note `[output truncated to <limit> characters; <k>
// characters omitted]`.
func capText(s string, total, limit int) capped {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if total <= limit && utf8.RuneCountInString(s) <= limit {
		return capped{Text: s}
	}
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit])
	}
	omitted := max(total, utf8.RuneCountInString(s)) - limit
	return capped{Text: s + fmt.Sprintf("\n\n[output truncated to %d characters; %d characters omitted]", limit, omitted),
		Truncated: true, Omitted: omitted}
}

// lineWriter splits a byte stream into lines for fn. Over-long lines are
// delivered in pieces so memory stays bounded.
type lineWriter struct {
	mu      sync.Mutex
	partial []byte
	fn      func(string)
}

const maxLine = 256 << 10

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.partial = append(w.partial, p...)
			if len(w.partial) > maxLine {
				w.fn(string(w.partial))
				w.partial = w.partial[:0]
			}
			break
		}
		w.partial = append(w.partial, p[:i]...)
		w.fn(strings.TrimSuffix(string(w.partial), "\r"))
		w.partial = w.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

// flush delivers a final line without a newline.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.partial) > 0 {
		w.fn(string(w.partial))
		w.partial = nil
	}
}

// tailBuf keeps the last limit bytes written to it, on a rune boundary.
type tailBuf struct {
	limit int
	b     []byte
}

func (t *tailBuf) add(s string) {
	t.b = append(t.b, s...)
	if len(t.b) > 2*t.limit {
		t.b = append([]byte(nil), t.b[len(t.b)-t.limit:]...)
	}
}

func (t *tailBuf) String() string {
	b := t.b
	if len(b) > t.limit {
		b = b[len(b)-t.limit:]
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
		return "…" + strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
