package jobs

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/testutil/fakeclock"
)

// CONTRACT.md §12.1: a job's snapshot carries tails of 1200 characters of its stdout and of its stderr, apart,
// counted in characters (not bytes) of what the command really wrote.
func TestContract12_1SnapshotTailsAre1200Characters(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	// 1500 two-byte characters ending in a marker on stdout; 10 on stderr.
	j, _ := run(t, m, Spec{Command: `i=0; while [ $i -lt 1500 ]; do printf 'é'; i=$((i+1)); done; printf END; printf 'oops' >&2`})
	s, err := m.Snapshot(j.ID())
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != Completed {
		t.Fatalf("status %s", s.Status)
	}
	body, cut := strings.CutPrefix(s.StdoutTail, "...")
	if !cut || utf8.RuneCountInString(body) != TailChars || !strings.HasSuffix(body, "éEND") || !utf8.ValidString(body) {
		t.Errorf("stdout tail: cut %v, %d characters, ends %q", cut, utf8.RuneCountInString(body), body[max(0, len(body)-8):])
	}
	if s.StderrTail != "oops" || s.StdoutLen != 1500*2+3 {
		t.Errorf("stderr tail %q, stdout length %d", s.StderrTail, s.StdoutLen)
	}
}

// CONTRACT.md §12.1: silent (running with no output for 60 s) is a flag beside the status, not a status: output
// resets it, a job is not silent before 60 s of quiet, and a finished job is never silent.
func TestContract12_1SilentIsAFlagOfARunningJob(t *testing.T) {
	t.Parallel()
	clock := fakeclock.At(time.Unix(1_700_000_000, 0))
	m := newTestManager(t, Options{Clock: clock.Now})
	j, err := m.Start(Spec{Command: "cat", Dir: t.TempDir(), KeepStdin: true, Background: true})
	if err != nil {
		t.Fatal(err)
	}
	snap := func() Snapshot {
		t.Helper()
		s, err := m.Snapshot(j.ID())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	clock.Advance(DefaultSilentAfter - time.Second)
	if s := snap(); s.Silent || s.Status != Running {
		t.Fatalf("quiet for 59 s: %+v", s)
	}
	clock.Advance(time.Second)
	if s := snap(); !s.Silent || s.Status != Running || s.Stale {
		t.Fatalf("quiet for 60 s: silent %v status %s stale %v", s.Silent, s.Status, s.Stale)
	}
	// Output (cat echoes its input) resets the quiet time.
	if d, err := m.Interact(context.Background(), j.ID(), "ping\n", false, 10*time.Second, ModelReader); err != nil ||
		!strings.Contains(d.Stdout.Content, "ping") {
		t.Fatalf("interact: %+v %v", d, err)
	}
	if s := snap(); s.Silent {
		t.Fatalf("silent right after output: %+v", s)
	}
	clock.Advance(DefaultSilentAfter)
	if !snap().Silent {
		t.Fatal("not silent 60 s after its last output")
	}
	if _, _, err := m.Cancel(j.ID()); err != nil {
		t.Fatal(err)
	}
	<-j.Done()
	clock.Advance(DefaultSilentAfter)
	if s := snap(); s.Silent || s.Status != Killed {
		t.Fatalf("a killed job: silent %v status %s", s.Silent, s.Status)
	}
}
