package engine

import (
	"strings"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/tools"
)

// progress forwards a running call's output tail as ToolCallProgress,
// bounded and redacted (CONTRACT.md §8.6): at most one per
// tools.ProgressInterval, a faster report dropped, and only when what the
// host would see changed. stop, called once the call has returned, drops
// every later report and waits for one being sent, so no progress follows
// the call's ToolCallComplete even from a tool that keeps reporting.
func (t *turn) progress(p *planned) (report func(string), stop func()) {
	var mu sync.Mutex // held while a report is sent: stop waits for it
	var last time.Time
	sent, stopped := "", false
	report = func(tail string) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		if stopped || !last.IsZero() && now.Sub(last) < tools.ProgressInterval {
			return
		}
		out := boundTail(t.e.redact(tail))
		if out == sent {
			return
		}
		last, sent = now, out
		t.e.emit(ToolCallProgress{ID: p.call.id, Name: p.call.name, Output: out})
	}
	stop = func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
	}
	return report, stop
}

// boundTail keeps the last tools.ProgressLines lines of s and at most
// tools.ProgressChars characters, cut at the front.
func boundTail(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if n := strings.Count(s, "\n"); n >= tools.ProgressLines {
		for i := 0; i <= n-tools.ProgressLines; i++ {
			s = s[strings.IndexByte(s, '\n')+1:]
		}
	}
	if r := []rune(s); len(r) > tools.ProgressChars {
		s = string(r[len(r)-tools.ProgressChars:])
	}
	return s
}
