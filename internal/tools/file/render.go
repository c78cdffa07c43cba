package file

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

const contentCutMarker = "\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\n"

// countLines counts lines the way a reader sees them: a final line without a
// newline counts, a trailing newline does not open another.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// renderRead renders a read result (CONTRACT.md §6.2 read): the raw text for a
// small file read without a window, else the numbered window.
func renderRead(r readReq, data []byte) string {
	total := countLines(data)
	if !r.windowed && len(data) <= readBudget && total <= defaultMaxLines {
		return string(data)
	}
	if r.start > total {
		return fmt.Sprintf("<file path=\"%s\" total_lines=\"%d\" shown_lines=\"none\" truncated=\"false\">\n\n"+
			"[NO CONTENT] start_line %d is beyond total_lines %d.\n</file>", r.path, total, r.start, total)
	}
	a := r.start
	b := min(total, a+r.max-1)
	body, longest, longestLine := numberedLines(data, a, b)
	var notes strings.Builder
	cut := len(body) > readBudget
	if cut {
		rendered := len(body)
		body = cutMiddle(body)
		if longest > readBudget {
			fmt.Fprintf(&notes, "\n[CONTENT TRUNCATED] Line %d alone is %d bytes, over the %d-byte read budget. "+
				"Use File action=\"search_content\" to find the part you need, or Bash `cut -c` to read a slice of it.\n",
				longestLine, longest, readBudget)
		} else {
			fmt.Fprintf(&notes, "\n[CONTENT TRUNCATED] Lines %d-%d render to %d bytes, over the %d-byte read budget; "+
				"the middle was omitted. Re-read narrower windows (a smaller max_lines) to see every line.\n",
				a, b, rendered, readBudget)
		}
	}
	lineCapped := b < total
	if lineCapped {
		fmt.Fprintf(&notes, "\n[TRUNCATED] Showing lines %d-%d of %d. To continue, call File with action=\"read\" "+
			"path=\"%s\" start_line=%d max_lines=%d\n", a, b, total, r.path, b+1, r.max)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "<file path=\"%s\" total_lines=\"%d\" shown_lines=\"%d-%d\" truncated=\"%t\"", r.path, total, a, b, lineCapped || cut)
	if lineCapped {
		fmt.Fprintf(&out, " next_start_line=\"%d\"", b+1)
	}
	out.WriteString(">\n")
	out.WriteString(body)
	out.WriteString(notes.String())
	out.WriteString("</file>")
	return out.String()
}

// numberedLines renders lines a..b (1-based, inclusive) as "%6d│ %s\n" and
// reports the longest rendered line and its number.
func numberedLines(data []byte, a, b int) (string, int, int) {
	pos := lineStart(data, a)
	var sb strings.Builder
	sb.Grow(min(len(data)-pos+(b-a+1)*10, 4*readBudget))
	longest, longestLine := 0, 0
	var num [20]byte
	for n := a; n <= b; n++ {
		end := len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			end = pos + i
		}
		line := bytes.TrimSuffix(data[pos:end], []byte{'\r'})
		start := sb.Len()
		digits := strconv.AppendInt(num[:0], int64(n), 10)
		for pad := 6 - len(digits); pad > 0; pad-- {
			sb.WriteByte(' ')
		}
		sb.Write(digits)
		sb.WriteString("│ ")
		sb.Write(line)
		sb.WriteByte('\n')
		if l := sb.Len() - start; l > longest {
			longest, longestLine = l, n
		}
		pos = end + 1
	}
	return sb.String(), longest, longestLine
}

// lineStart returns the offset of line n (1-based; n <= line count).
// Whole 32 KiB chunks are skipped with bytes.Count, which is vectorised, so
// reaching the end of a 10 MB file costs a few hundred calls, not one per line.
func lineStart(data []byte, n int) int {
	const chunk = 32 << 10
	pos, skip := 0, n-1
	for skip > 0 && len(data)-pos > chunk {
		c := bytes.Count(data[pos:pos+chunk], []byte{'\n'})
		if c >= skip {
			break
		}
		skip -= c
		pos += chunk
	}
	for ; skip > 0; skip-- {
		pos += bytes.IndexByte(data[pos:], '\n') + 1
	}
	return pos
}

// cutMiddle keeps a head of readBudget/5 bytes and a tail filling the rest of
// the budget, cut at line ends where a whole line fits and at rune
// boundaries otherwise.
func cutMiddle(s string) string {
	headMax := readBudget / 5
	tailMax := readBudget - headMax
	head := s[:runeFloor(s, headMax)]
	if i := strings.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	}
	tail := s[runeCeil(s, len(s)-tailMax):]
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		tail = tail[i+1:]
	}
	return strings.TrimSuffix(head, "\n") + contentCutMarker + tail
}

// runeFloor is the largest rune boundary <= n.
func runeFloor(s string, n int) int {
	n = min(n, len(s))
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// runeCeil is the smallest rune boundary >= n.
func runeCeil(s string, n int) int {
	n = max(n, 0)
	for n < len(s) && !utf8.RuneStart(s[n]) {
		n++
	}
	return n
}
