package tui

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/testutil/fakeclock"
	"github.com/codewhale/codewhale/internal/tui/transcript"
)

// fill adds n cells: prompts, Markdown replies and tool calls.
func fill(m *Model, n int) {
	for i := 0; i < n; i++ {
		switch i % 4 {
		case 0:
			m.tr.Add(transcript.NewCell(transcript.User, fmt.Sprintf("question %d: how does the scheduler handle this?", i)))
		case 1, 3:
			m.tr.Add(transcript.NewCell(transcript.Assistant, fmt.Sprintf("Answer %d with **bold**, `code` and a list:\n\n- one\n- two\n\n```go\nfmt.Println(%d)\n```", i, i)))
		case 2:
			c := transcript.NewTool(fmt.Sprint("call_", i), "File", []byte(`{"action":"read","path":"cmd/root.go"}`), i, t0)
			c.Complete(engine.ToolOutcome{Content: "package main", Success: true}, t0)
			m.tr.Add(c)
		}
	}
}

// BenchmarkKeystroke10kTranscript measures one composer keystroke (Update
// plus a full frame) with 10,000 cells in the transcript, and reports the
// 99th percentile and the heap in use.
func BenchmarkKeystroke10kTranscript(b *testing.B) {
	d := newDirect(b, 120, 40)
	fill(d.m, 10_000)
	d.m.View()
	durations := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	const text = "please refactor the scheduler so that jobs are retried with backoff "
	for i := 0; i < b.N; i++ {
		k := string(text[i%len(text)])
		if i%len(text) == len(text)-1 {
			k = "ctrl+u" // start a new draft, like sending a message
		}
		start := time.Now()
		d.m.Update(keyMsg(k))
		_ = d.m.View()
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	b.ReportMetric(float64(durations[len(durations)*99/100].Nanoseconds()), "p99-ns")
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
}

// streamDeltas feeds total deltas at rate per second into ch, then closes
// it; the ticker paces the producer, it does not synchronise the test.
func streamDeltas(ch chan<- engine.Event, rate, total int) {
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	ch <- engine.TurnStarted{TurnID: "t"}
	ch <- engine.MessageStarted{}
	for i := 0; i < total; i++ {
		<-tick.C
		ch <- engine.MessageDelta{Content: fmt.Sprintf("w%d ", i)}
	}
	ch <- engine.MessageComplete{}
	ch <- engine.TurnComplete{Status: engine.TurnCompleted}
	close(ch)
}

// streamThroughModel runs the model's own subscription against a stream of
// 2,000 deltas a second and returns the frames drawn, the final reply and
// the share of wall time the UI goroutine spent in Update and View.
func streamThroughModel(tb testing.TB, total int) (frames int, reply string, uiShare float64) {
	eng := newFakeEngine()
	clock := fakeclock.At(t0)
	m := New(baseOptions(eng, clock))
	m.Update(teaSize(120, 40))
	m.sub.ch = eng.ch
	go streamDeltas(eng.ch, 2000, total)
	start := time.Now()
	var busy time.Duration
	for {
		msg := m.sub.next()().(eventsMsg)
		s := time.Now()
		for _, ev := range msg.events {
			m.applyEvent(ev)
		}
		_ = m.View()
		busy += time.Since(s)
		frames++
		if msg.closed {
			break
		}
	}
	wall := time.Since(start)
	if c := m.tr.Last(transcript.Assistant); c != nil {
		reply = c.Text()
	}
	return frames, reply, float64(busy) / float64(wall)
}

func TestStreamingAt2000DeltasPerSecondIsCoalescedAndLossless(t *testing.T) {
	const total = 2000
	start := time.Now()
	frames, reply, share := streamThroughModel(t, total)
	wall := time.Since(start)
	var want strings.Builder
	for i := 0; i < total; i++ {
		fmt.Fprintf(&want, "w%d ", i)
	}
	if reply != want.String() {
		t.Fatalf("reply lost text: %d of %d bytes", len(reply), want.Len())
	}
	limit := int(wall/DefaultFrame) + 2
	if frames > limit {
		t.Errorf("%d frames in %v; at most %d at 60 fps", frames, wall, limit)
	}
	t.Logf("2,000 deltas in %v: %d frames (%.0f fps), UI goroutine busy %.1f%% of wall time",
		wall.Round(time.Millisecond), frames, float64(frames)/wall.Seconds(), 100*share)
}

// BenchmarkStream2000DeltasPerSecond reports frames per second and the UI
// goroutine's share of wall time while one second of deltas streams in.
func BenchmarkStream2000DeltasPerSecond(b *testing.B) {
	for i := 0; i < b.N; i++ {
		start := time.Now()
		frames, _, share := streamThroughModel(b, 2000)
		b.ReportMetric(float64(frames)/time.Since(start).Seconds(), "frames/s")
		b.ReportMetric(100*share, "ui-busy-%")
	}
}
