package jobs

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Output bounds of one stream in a tool result (CONTRACT.md §6.1).
const (
	MaxOutputBytes = 30000
	HeadBytes      = 6000
	TailBytes      = 24000
)

// Limits of the "preserved summary lines" section: enough to keep every
// failing test of a large run visible, never enough to undo the bound.
const (
	maxSummaryLines     = 80
	maxSummaryLineChars = 240
	maxSummaryBytes     = 8000
)

// Text is one stream of a result after bounding.
type Text struct {
	Content   string // what the model sees
	Len       int64  // bytes the stream produced over the range
	Truncated bool
	Omitted   int64 // bytes left out of Content
}

// Bound renders a span within MaxOutputBytes: when it is longer (or lost
// bytes to retention) it keeps the first HeadBytes and the last TailBytes,
// cut on UTF-8 boundaries, with the exact truncation note between them, the
// high-signal lines of the omitted middle, and the tail.
func Bound(sp Span) Text {
	total := sp.Len()
	if sp.Hole == 0 && total <= MaxOutputBytes {
		return Text{Content: validUTF8(append(sp.Front, sp.Back...)), Len: total}
	}
	var head, middle, tail []byte
	if sp.Hole == 0 {
		all := append(sp.Front, sp.Back...)
		h := runeStartAtOrBefore(all, HeadBytes)
		t := runeStartAtOrAfter(all, len(all)-TailBytes)
		head, middle, tail = all[:h], all[h:t], all[t:]
	} else {
		h := runeStartAtOrBefore(sp.Front, min(HeadBytes, len(sp.Front)))
		t := runeStartAtOrAfter(sp.Back, max(0, len(sp.Back)-TailBytes))
		head, tail = sp.Front[:h], sp.Back[t:]
		middle = append(append(clone(sp.Front[h:]), '\n'), sp.Back[:t]...)
	}
	omitted := total - int64(len(head)) - int64(len(tail))
	var b strings.Builder
	b.WriteString(validUTF8(head))
	fmt.Fprintf(&b, "...\n\n[Output truncated: showing first %d bytes and last %d bytes. %d bytes omitted.]",
		len(head), len(tail), omitted)
	if lines := summaryLines(middle); len(lines) > 0 {
		b.WriteString("\n\n[Preserved summary lines from omitted middle]\n")
		b.WriteString(strings.Join(lines, "\n"))
	}
	b.WriteString("\n\n[Output tail]\n")
	b.WriteString(validUTF8(tail))
	return Text{Content: b.String(), Len: total, Truncated: true, Omitted: omitted}
}

// summaryLines picks the lines of an omitted middle that a reader would
// otherwise re-run the command to see: test verdicts, compiler errors,
// panics, process-level failures.
func summaryLines(middle []byte) []string {
	var out []string
	size := 0
	for _, line := range strings.Split(validUTF8(middle), "\n") {
		if len(out) == maxSummaryLines {
			break
		}
		if !isSummaryLine(line) {
			continue
		}
		line = clipRunes(strings.TrimRight(line, "\r"), maxSummaryLineChars)
		if size+len(line)+1 > maxSummaryBytes {
			break
		}
		size += len(line) + 1
		out = append(out, line)
	}
	return out
}

var summaryPrefixes = []string{
	"test result:", "failures:", "FAILED", "FAIL", "PASS", "ok  \t", "--- FAIL", "error[", "error:", "Error:",
	"ERROR", "warning:", "panicked at", "panic:", "thread '", "Traceback", "AssertionError", "Killed",
	"Aborted", "Segmentation fault", "exit status", "exit code", "not ok", "# fail", "# pass", "Tests:",
	"Finished", "BUILD FAILED",
}

func isSummaryLine(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" {
		return false
	}
	for _, p := range summaryPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	// Test-runner verdict lines that do not start with a keyword, such as
	// pytest's "==== 3 failed, 10 passed in 1.2s ====" or libtest's
	// "test parser::x ... FAILED".
	return strings.Contains(t, " failed") && strings.Contains(t, " passed") ||
		strings.HasPrefix(t, "test ") && strings.HasSuffix(t, "FAILED")
}

// Tail returns the last n characters of b, prefixed "..." when cut.
func Tail(b []byte, n int) string {
	s := validUTF8(b)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return "..." + string(r[len(r)-n:])
}

// Summary is the first three lines of text, at most 240 characters, without
// any truncation note (the `summary` metadata field).
func Summary(text string) string {
	if i := strings.Index(text, "...\n\n[Output truncated"); i >= 0 {
		text = text[:i]
	}
	lines := strings.SplitN(text, "\n", 4)
	if len(lines) > 3 {
		lines = lines[:3]
	}
	s := strings.TrimSpace(strings.Join(lines, "\n"))
	if utf8.RuneCountInString(s) > 240 {
		return string([]rune(s)[:240]) + "..."
	}
	return s
}

// FormatElapsed renders a duration for timing lines: "450 ms", "12.3 s",
// "2m5s".
func FormatElapsed(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	default:
		s := int64(d / time.Second)
		return fmt.Sprintf("%dm%ds", s/60, s%60)
	}
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "..."
}

func validUTF8(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }

// runeStartAtOrBefore returns the largest i <= n that does not split a
// UTF-8 sequence of b.
func runeStartAtOrBefore(b []byte, n int) int {
	if n >= len(b) {
		return len(b)
	}
	for i := n; i > 0 && n-i < utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return n
}

// runeStartAtOrAfter returns the smallest i >= n that does not split a
// UTF-8 sequence of b.
func runeStartAtOrAfter(b []byte, n int) int {
	if n <= 0 {
		return 0
	}
	for i := n; i < len(b) && i-n < utf8.UTFMax; i++ {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return min(n, len(b))
}

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
