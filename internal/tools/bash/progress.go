package bash

import (
	"bytes"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/tools"
)

// tailBytes is how much of each stream the live view reads: enough for
// tools.ProgressLines long lines.
const tailBytes = 4 << 10

// watchProgress reports the job's output tail to report while the job
// runs: after each change, at most every tools.ProgressInterval (a rate
// limit, not a poll: it waits on the job's change signal). The returned
// stop ends the watcher and waits for it, so no report follows the
// result.
func watchProgress(j *jobs.Job, report func(string)) (stop func()) {
	if report == nil {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		last := ""
		for {
			// Take the signal before reading, so output written in between
			// wakes the next round instead of being missed.
			changed := j.Changed()
			if s := liveTail(j); s != last && s != "" {
				report(s)
				last = s
			}
			select {
			case <-quit:
				return
			case <-j.Done():
				return
			case <-changed:
			}
			limit := time.NewTimer(tools.ProgressInterval)
			select {
			case <-quit:
				limit.Stop()
				return
			case <-j.Done():
				limit.Stop()
				return
			case <-limit.C:
			}
		}
	}()
	return func() { close(quit); <-done }
}

// liveTail is the last tools.ProgressLines lines of the job's output:
// stdout's, then stderr's (their interleaving in time is not kept).
func liveTail(j *jobs.Job) string {
	out, errs := j.Tail(tailBytes)
	var b bytes.Buffer
	b.Write(bytes.TrimRight(out, "\n"))
	if e := bytes.TrimRight(errs, "\n"); len(e) > 0 {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.Write(e)
	}
	lines := strings.Split(strings.ToValidUTF8(b.String(), "\uFFFD"), "\n")
	if len(lines) > tools.ProgressLines {
		lines = lines[len(lines)-tools.ProgressLines:]
	}
	return strings.Join(lines, "\n")
}
