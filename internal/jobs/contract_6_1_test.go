package jobs

import (
	"fmt"
	"strings"
	"testing"
)

// CONTRACT.md §6.1: a bounded stream carries at most 80 high-signal lines from the omitted middle, in order.
func TestContract61AtMost80SummaryLines(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(strings.Repeat("h", HeadBytes))
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "\n--- FAIL: Test%03d (0.00s)", i)
	}
	b.WriteString("\n" + strings.Repeat("t", TailBytes))
	got := Bound(Span{Front: []byte(b.String())})
	_, rest, ok := strings.Cut(got.Content, "\n\n[Preserved summary lines from omitted middle]\n")
	if !ok {
		t.Fatal("no summary section")
	}
	summary, _, _ := strings.Cut(rest, "\n\n[Output tail]\n")
	lines := strings.Split(summary, "\n")
	if len(lines) != 80 || lines[0] != "--- FAIL: Test000 (0.00s)" || lines[79] != "--- FAIL: Test079 (0.00s)" {
		t.Fatalf("%d summary lines: first %q last %q", len(lines), lines[0], lines[len(lines)-1])
	}
}
