package mdterm

import "strings"

// plainLines is what a message that renders to nothing (an HTML comment,
// say) is drawn as: its text word-wrapped without styles, so no message is
// ever an empty cell.
func plainLines(src string, width int) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(src, "\n"), "\n") {
		out = append(out, wrapSpans([]span{{text: l}}, width, "", "")...)
	}
	return out
}

// SplitStable splits streaming Markdown into a stable head, ending at the
// last blank line outside a code fence, and the unfinished tail. The head
// will not change as more text arrives, so it can be rendered once.
func SplitStable(src string) (head, tail string) {
	cut, inFence := -1, false
	pos := 0
	for pos < len(src) {
		end := strings.IndexByte(src[pos:], '\n')
		if end < 0 {
			break // the last line is unfinished
		}
		line := src[pos : pos+end]
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
		} else if trimmed == "" && !inFence {
			cut = pos + end + 1
		}
		pos += end + 1
	}
	if cut < 0 {
		return "", src
	}
	return src[:cut], src[cut:]
}
