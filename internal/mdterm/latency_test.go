package mdterm

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/muesli/termenv"

	"github.com/codewhale/codewhale/internal/testutil/cputime"
)

// chromaLangs are the languages models write most after Go, which chroma's
// lexers highlight (testdata/code holds a realistic sample of each).
var chromaLangs = []string{"py", "js", "ts", "sh", "json", "yaml", "rs", "c", "cpp"}

// sampleLines is n lines of testdata/code/sample.<lang>, repeated.
func sampleLines(tb testing.TB, lang string, n int) string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "code", "sample."+lang))
	if err != nil {
		tb.Fatal(err)
	}
	lines := strings.SplitAfter(strings.Repeat(string(data), n/strings.Count(string(data), "\n")+1), "\n")
	return strings.Join(lines[:n], "")
}

// coldLatency is the colour latency of the first block of each language in
// this process, when chroma compiles the lexer's rules.
var coldLatency = map[string]latency{}

// latency is one block's: its slowest frame, wall and the UI thread's CPU
// time, and the time until its colours arrived, wall and the process's CPU
// time meanwhile (frames, chroma and the collector: on a loaded machine the
// CPU figures are what a quiet one would show as wall time).
type latency struct{ frame, frameCPU, colour, colourCPU time.Duration }

func (l latency) max(o latency) latency {
	return latency{max(l.frame, o.frame), max(l.frameCPU, o.frameCPU), max(l.colour, o.colour), max(l.colourCPU, o.colourCPU)}
}

// BenchmarkColourLatency300Lines is what a person sees when a reply carries
// a 300-line block (the most models send in one) in one of chromaLangs,
// with the TUI's notifier installed: the frame that draws the message
// (Render on the UI goroutine: the code plain, its colours on their way),
// the frames drawn at 60 Hz while chroma tokenises on another goroutine,
// and the time until the colours arrive. Reported, as the slowest over the
// iterations: frame-ms and frame-cpu-ms (budget 16 ms), colour-ms and
// colour-cpu-ms with the lexer warm (budget 100 ms), and cold-colour-ms and
// cold-colour-cpu-ms for the first block of that language in the process,
// which also compiles its lexer (and, for the first language, builds the
// registry): the -benchtime 1x figure.
func BenchmarkColourLatency300Lines(b *testing.B) {
	for _, lang := range chromaLangs {
		src := "Here is the file:\n\n```" + lang + "\n" + sampleLines(b, lang, 300) + "```\n\nThat is all.\n"
		b.Run(lang, func(b *testing.B) {
			var worst latency
			for range b.N {
				l := colourLatency(b, src)
				if _, seen := coldLatency[lang]; !seen {
					coldLatency[lang] = l
				} else {
					worst = worst.max(l)
				}
				worst.frame, worst.frameCPU = max(worst.frame, l.frame), max(worst.frameCPU, l.frameCPU)
			}
			cold := coldLatency[lang]
			for unit, d := range map[string]time.Duration{"frame-ms": worst.frame, "frame-cpu-ms": worst.frameCPU,
				"colour-ms": worst.colour, "colour-cpu-ms": worst.colourCPU,
				"cold-colour-ms": cold.colour, "cold-colour-cpu-ms": cold.colourCPU} {
				b.ReportMetric(float64(d.Microseconds())/1000, unit)
			}
		})
	}
}

// colourLatency renders src with a fresh renderer (an empty cache) as the
// TUI does: a frame now, one every 16 ms until the notifier says the
// colours are ready, and the coloured frame.
func colourLatency(b *testing.B, src string) (l latency) {
	runtime.LockOSThread() // the UI goroutine's own CPU time per frame
	defer runtime.UnlockOSThread()
	r := New(termenv.TrueColor, true, true)
	ready := make(chan struct{}, 1)
	r.SetNotify(func() { ready <- struct{}{} })
	frame := func() []string {
		start, cpu := time.Now(), cputime.Thread()
		out := r.Render(src, 100)
		l.frame, l.frameCPU = max(l.frame, time.Since(start)), max(l.frameCPU, cputime.Thread()-cpu)
		return out
	}
	start, cpu := time.Now(), cputime.Process()
	frame()
	tick := time.NewTicker(16 * time.Millisecond)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case <-ready:
			l.colour, l.colourCPU = time.Since(start), cputime.Process()-cpu
			waiting = false
		case <-tick.C:
			frame()
		}
	}
	if out := strings.Join(frame(), "\n"); len(colours(out)) < 3 {
		b.Fatalf("not highlighted after the notification: %.200q", out)
	}
	return l
}
