package engine

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/codewhale/codewhale/internal/provider"
)

// longEngine is an engine whose history already holds n messages; its
// event stream is large enough that adds never block.
func longEngine(n int) *Engine {
	e := New(Options{Workspace: "/ws", EventBuffer: 1})
	for i := range n {
		e.sess.Messages = append(e.sess.Messages, provider.UserText(fmt.Sprintf("message %d", i)))
	}
	return e
}

// Announcing a message costs the message, not the history: SessionUpdated
// carries what changed, so the bytes allocated per append stay flat as the
// history grows (copying a 20,000-message history would cost ≥ 2 MB each).
// CONTRACT.md §8.2: SessionUpdated carries the history from Start on, so an append carries the new message alone and
// Apply folds it into the host's copy.
func TestSessionUpdatedDoesNotCopyTheHistory(t *testing.T) {
	e := longEngine(20000)
	m := provider.UserText("one more")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const adds = 200
	for range adds {
		ev := e.add(m)
		if ev.Start != len(e.sess.Messages)-1 || len(ev.Messages) != 1 {
			t.Fatalf("update %+v", ev)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / adds; per > 64<<10 {
		t.Errorf("each append allocated %d bytes on a 20,000-message history", per)
	}
	hist := append([]provider.Message(nil), e.sess.Messages[:10]...)
	full := SessionUpdated{Start: 0, Messages: e.sess.Messages[:5]}
	if got := full.Apply(hist); len(got) != 5 || &got[0] == &hist[0] {
		t.Errorf("a replacement must build a new slice: %d", len(got))
	}
	if got := (SessionUpdated{Start: 10, Messages: []provider.Message{m}}).Apply(hist); len(got) != 11 || got[10].Text() != "one more" {
		t.Errorf("append: %d", len(got))
	}
}

// BenchmarkSessionUpdated is the cost of announcing one message on a long
// history (docs/PERFORMANCE.md); the copy rows are the reference, what the
// event cost when it carried the whole history.
func BenchmarkSessionUpdated(b *testing.B) {
	for _, n := range []int{100, 10000} {
		e := longEngine(n)
		m := provider.UserText("one more")
		b.Run(fmt.Sprintf("append/history=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.add(m)
				e.sess.Messages = e.sess.Messages[:n]
			}
		})
		b.Run(fmt.Sprintf("copy/history=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = append([]provider.Message(nil), e.sess.Messages...)
			}
		})
	}
}
