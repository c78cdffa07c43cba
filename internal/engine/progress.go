package engine

import (
	"strings"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/tools"
)

// progress forwards a running call's output tail as ToolCallProgress,
// bounded and redacted. A tool reporting faster than tools.ProgressInterval
// has the extra reports dropped. The tool stops reporting before it
// returns, so no progress follows the call's completion.
func (t *turn) progress(p *planned) func(string) {
	var mu sync.Mutex
	var last time.Time
	return func(tail string) {
		mu.Lock()
		now := time.Now()
		early := !last.IsZero() && now.Sub(last) < tools.ProgressInterval/2
		if !early {
			last = now
		}
		mu.Unlock()
		if early {
			return
		}
		t.e.emit(ToolCallProgress{ID: p.call.id, Name: p.call.name, Output: boundTail(t.e.redact(tail))})
	}
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
