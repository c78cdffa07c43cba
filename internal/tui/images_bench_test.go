package tui

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/images"
	"github.com/codewhale/codewhale/internal/testutil/cputime"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// noisyPNG writes a PNG of about 5 MB (noise does not compress) and
// returns its bytes.
func noisyPNG(b testing.TB, path string) []byte {
	b.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 1200, 1100))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// uiTimer keeps the longest and the total CPU time of the calling OS
// thread over the calls it times. The benchmark's goroutine is locked to
// its thread and plays the UI goroutine: on a shared machine its wall time
// is mostly the wait for a core, its thread's CPU time is its own work.
type uiTimer struct {
	max, total time.Duration
	n          int
}

func (u *uiTimer) time(f func()) {
	c := cputime.Thread()
	f()
	d := cputime.Thread() - c
	u.max, u.total, u.n = max(u.max, d), u.total+d, u.n+1
}

// typist is the keys a person types while the image is read: a sentence,
// then Ctrl+U, so the composer stays the size of a message.
var typist = append(bytesToKeys("what is wrong with this screenshot "), tea.KeyMsg{Type: tea.KeyCtrlU})

func bytesToKeys(s string) []tea.KeyMsg {
	out := make([]tea.KeyMsg, 0, len(s))
	for _, r := range s {
		out = append(out, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	return out
}

// keyFrame is one key and the frame after it, as the program runs them.
func keyFrame(d *direct, i int) {
	d.m.Update(typist[i%len(typist)])
	_ = d.m.View()
}

// BenchmarkAttach5MBPNG measures the UI goroutine while a 5 MB PNG is
// attached (CONTRACT.md §14.11): the paste's Update, which only starts the
// read; a key and a frame every 10 ms (a fast typist) while the read,
// decode, scale and encode run on another goroutine, as the program runs
// commands; and the Update that adds the chip. Its references, measured in
// the same iteration: the same keys and frames with nothing in flight
// (idle-*), and images.Prepare of the same bytes on this thread
// (prepare-cpu-ms), the freeze if that work ran in Update.
func BenchmarkAttach5MBPNG(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cputime.Thread() == 0 {
		e2e.Missing(b, "the thread CPU clock (CLOCK_THREAD_CPUTIME_ID) is read on Linux only")
	}
	ws := b.TempDir()
	data := noisyPNG(b, filepath.Join(ws, "big.png"))
	var busy, idle, prepare uiTimer
	for i := 0; i < b.N; i++ {
		prepare.time(func() {
			if _, err := images.Prepare(context.Background(), data, images.Options{}); err != nil {
				b.Fatal(err)
			}
		})
		keys := attachWhileTyping(b, ws, &busy)
		d := visionDirect(b, ws, "eyes")
		d.m.Update(teaSize(120, 40))
		for k := range keys {
			idle.time(func() { keyFrame(d, k) })
		}
	}
	b.ReportMetric(float64(len(data))/(1<<20), "png-MiB")
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(prepare.total)/float64(prepare.n), "prepare-cpu-ms")
	b.ReportMetric(ms(busy.max), "busy-max-cpu-ms")
	b.ReportMetric(ms(idle.max), "idle-max-cpu-ms")
	b.ReportMetric(ms(busy.total)/float64(busy.n), "busy-mean-cpu-ms")
	b.ReportMetric(ms(idle.total)/float64(idle.n), "idle-mean-cpu-ms")
	b.ReportMetric(float64(busy.max)/float64(idle.max), "busy/idle-max")
	b.ReportMetric(float64(prepare.total)/float64(prepare.n)/float64(busy.max), "prepare/busy-max")
}

// attachWhileTyping pastes big.png's path into a fresh model, types until
// the read's message arrives, feeds it in, and returns how many keys were
// typed; every Update and frame is timed into t.
func attachWhileTyping(b *testing.B, ws string, t *uiTimer) int {
	d := visionDirect(b, ws, "eyes")
	d.m.Update(teaSize(120, 40))
	var cmd tea.Cmd
	t.time(func() { cmd = d.paste(filepath.Join(ws, "big.png")) })
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }() // the program runs commands off the UI goroutine
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	keys := 0
	for {
		select {
		case msg := <-done:
			t.time(func() { d.m.Update(msg); _ = d.m.View() })
			if d.m.attach.Len() != 1 {
				b.Fatalf("no chip: %s", d.m.status.msg.text)
			}
			return keys
		case <-tick.C:
			t.time(func() { keyFrame(d, keys) })
			keys++
		}
	}
}
