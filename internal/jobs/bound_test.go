package jobs

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestBoundKeepsShortOutputWhole(t *testing.T) {
	t.Parallel()
	in := strings.Repeat("x", MaxOutputBytes)
	got := Bound(Span{Front: []byte(in)})
	if got.Content != in || got.Truncated || got.Omitted != 0 || got.Len != MaxOutputBytes {
		t.Fatalf("exactly %d bytes was altered: truncated=%v omitted=%d", MaxOutputBytes, got.Truncated, got.Omitted)
	}
}

func TestBoundKeepsHeadAndTailWithExactNote(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; b.Len() < 100000; i++ {
		fmt.Fprintf(&b, "line %06d\n", i)
		if i == 3000 {
			b.WriteString("--- FAIL: TestInTheMiddle (0.00s)\n")
		}
	}
	in := b.String()
	got := Bound(Span{Front: []byte(in)})
	omitted := len(in) - HeadBytes - TailBytes
	note := fmt.Sprintf("...\n\n[Output truncated: showing first %d bytes and last %d bytes. %d bytes omitted.]", HeadBytes, TailBytes, omitted)
	want := in[:HeadBytes] + note +
		"\n\n[Preserved summary lines from omitted middle]\n--- FAIL: TestInTheMiddle (0.00s)" +
		"\n\n[Output tail]\n" + in[len(in)-TailBytes:]
	if got.Content != want {
		t.Fatalf("bounded content differs from head+note+summary+tail (len %d vs %d)", len(got.Content), len(want))
	}
	if !got.Truncated || got.Omitted != int64(omitted) || got.Len != int64(len(in)) {
		t.Fatalf("meta %+v", got)
	}
}

func TestBoundNeverSplitsARune(t *testing.T) {
	t.Parallel()
	// 3-byte runes put the 6000/24000 cut points inside a sequence.
	in := strings.Repeat("é", 1) + strings.Repeat("中", 20000)
	got := Bound(Span{Front: []byte(in)})
	if !utf8.ValidString(got.Content) || strings.ContainsRune(got.Content, utf8.RuneError) {
		t.Fatal("bounded output is not valid UTF-8")
	}
	head, _, _ := strings.Cut(got.Content, "...\n\n[Output truncated")
	if len(head) > HeadBytes || len(head) < HeadBytes-3 {
		t.Fatalf("head is %d bytes", len(head))
	}
	if !strings.Contains(got.Content, fmt.Sprintf("showing first %d bytes", len(head))) {
		t.Fatal("note does not report the head actually kept")
	}
}

func TestBoundReportsRetentionHoles(t *testing.T) {
	t.Parallel()
	var s stream
	chunk := []byte(strings.Repeat("a", 4096))
	for s.total < headKeep+3*tailKeep {
		s.write(chunk)
	}
	sp := s.from(0)
	if sp.Hole == 0 || sp.Len() != s.total {
		t.Fatalf("hole %d len %d total %d", sp.Hole, sp.Len(), s.total)
	}
	got := Bound(sp)
	if got.Omitted != s.total-HeadBytes-TailBytes || got.Len != s.total {
		t.Fatalf("omitted %d of %d", got.Omitted, s.total)
	}
	if len(s.tail) > 2*tailKeep || len(s.head) != headKeep {
		t.Fatalf("retention exceeded: head %d tail %d", len(s.head), len(s.tail))
	}
}

// CONTRACT.md §12.1: tails keep the last 1200 characters, counted in runes.
func TestTailSummaryAndElapsed(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ü", 1300)
	if got := Tail([]byte(long), 1200); got != "..."+strings.Repeat("ü", 1200) {
		t.Fatalf("tail of %d runes is %d runes", 1300, utf8.RuneCountInString(got))
	}
	if got := Tail([]byte("short"), 1200); got != "short" {
		t.Fatalf("short tail %q", got)
	}
	if got := Summary("a\nb\nc\nd\n"); got != "a\nb\nc" {
		t.Fatalf("summary %q", got)
	}
	for d, want := range map[time.Duration]string{
		450 * time.Millisecond: "450 ms", 2100 * time.Millisecond: "2.1 s", 125 * time.Second: "2m5s",
	} {
		if got := FormatElapsed(d); got != want {
			t.Errorf("FormatElapsed(%v) = %q, want %q", d, got, want)
		}
	}
}
