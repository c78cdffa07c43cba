package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/provider"
)

// history returns n messages shaped like an agent session: prompts, tool
// calls with results, answers; about 600 bytes each.
func history(n int) []provider.Message {
	out := make([]provider.Message, 0, n)
	for i := 0; len(out) < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		for _, m := range []provider.Message{userTurn(fmt.Sprintf("step %d: %s", i, strings.Repeat("p", 200))),
			toolCall(id, "go test ./..."), toolResult(id, strings.Repeat("ok  pkg\n", 60)), assistant(strings.Repeat("a", 400))} {
			if len(out) < n {
				out = append(out, m)
			}
		}
	}
	return out
}

// BenchmarkAppendTo5000MessageSession measures saving one message, with the
// turn's new usage totals, into a session that already holds 5,000
// messages: one write and one fsync, independent of the history's size.
// The nosync variant isolates the CPU cost (redaction, encoding).
func BenchmarkAppendTo5000MessageSession(b *testing.B) {
	for _, sync := range []bool{true, false} {
		name := "fsync"
		if !sync {
			name = "nosync"
		}
		b.Run(name, func(b *testing.B) {
			j := NewJournal(b.TempDir(), Options{noSync: !sync})
			defer j.Close()
			info := testInfo("bench-append")
			if err := j.Rewrite(info, history(5000)); err != nil {
				b.Fatal(err)
			}
			msg := assistant(strings.Repeat("answer ", 150))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				info.Usage.InputTokens += 900
				info.Usage.OutputTokens += 120
				if err := j.Append(info, msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkList1000Sessions lists the 20 newest sessions of a workspace out
// of 1,000: "indexed" is the normal case, "rebuild" re-summarises every
// journal because the index was deleted.
func BenchmarkList1000Sessions(b *testing.B) {
	home := b.TempDir()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	msgs := history(12)
	for i := range 1000 {
		j := NewJournal(home, Options{Now: fixedClock(base.Add(time.Duration(i) * time.Minute)), noSync: true})
		info := testInfo(fmt.Sprintf("%08x-0000-4000-8000-%012d", i*7919, i))
		if i%2 == 1 {
			info.Workspace = "/work/other"
		}
		for _, m := range msgs {
			if err := j.Append(info, m); err != nil {
				b.Fatal(err)
			}
		}
		info.Usage = provider.Usage{InputTokens: 5000, OutputTokens: 700}
		if err := j.Append(info); err != nil {
			b.Fatal(err)
		}
		j.Close()
	}
	q := Query{Workspace: testWS, Limit: 20}
	check := func(b *testing.B) {
		ms, err := List(home, q)
		if err != nil || len(ms) != 20 || ms[0].MessageCount != 12 {
			b.Fatalf("List = %d sessions, %v", len(ms), err)
		}
	}
	b.Run("indexed", func(b *testing.B) {
		check(b)
		for b.Loop() {
			check(b)
		}
	})
	b.Run("rebuild", func(b *testing.B) {
		for b.Loop() {
			os.Remove(filepath.Join(Dir(home), indexFile))
			check(b)
		}
	})
}
