package file

import (
	"strconv"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

// parseHunk parses the hunk whose header is lines[i] and returns the index
// after its body. The header's counts delimit the body, so a body line that
// looks like a header (a removed "-- x") is not taken for one; lines past
// the counts are still taken while they are unambiguous body lines, since
// models often miscount. A "\ No newline at end of file" line marks the line
// before it: the old side's last line for '-', the new side's for '+', both
// for context.
func parseHunk(lines []string, i int) (hunk, int, error) {
	header := strings.TrimSuffix(lines[i], "\r")
	f := strings.Fields(header)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return hunk{}, 0, tools.InvalidInput("Invalid hunk header: %s. Expected numeric unified-diff form %s.", header, hunkForm)
	}
	oldStart, oldCount, err := parseRange(f[1][1:])
	if err != nil {
		return hunk{}, 0, err
	}
	_, newCount, err := parseRange(f[2][1:])
	if err != nil {
		return hunk{}, 0, err
	}
	h := hunk{oldStart: oldStart, oldCount: oldCount}
	oldRem, newRem := oldCount, newCount
	j := i + 1
	for ; j < len(lines); j++ {
		l := lines[j]
		if oldRem <= 0 && newRem <= 0 && !extraBodyLine(l) {
			break
		}
		if strings.HasPrefix(l, "@@") || strings.HasPrefix(l, "diff --git ") {
			break
		}
		if strings.HasPrefix(l, "\\") {
			h.markNoEOL()
			continue
		}
		kind, text := lineKind(l)
		h.lines = append(h.lines, hunkLine{kind, text})
		if kind != '+' {
			oldRem--
		}
		if kind != '-' {
			newRem--
		}
	}
	return h, j, nil
}

// lineKind classifies a body line. An empty line is blank context (editors
// strip the lone space), and so is a line with no recognised prefix.
func lineKind(l string) (byte, string) {
	if l == "" || l == "\r" {
		return ' ', l
	}
	switch l[0] {
	case '-', '+', ' ':
		return l[0], l[1:]
	}
	return ' ', l
}

// markNoEOL applies a "\ No newline at end of file" line to the body line
// before it.
func (h *hunk) markNoEOL() {
	if len(h.lines) == 0 {
		return
	}
	switch h.lines[len(h.lines)-1].kind {
	case '-':
		h.oldNoEOL = true
	case '+':
		h.newNoEOL = true
	default:
		h.oldNoEOL, h.newNoEOL = true, true
	}
}

// extraBodyLine reports whether a line after the header's counts are used up
// still clearly belongs to the hunk.
func extraBodyLine(l string) bool {
	if l == "" {
		return false
	}
	switch l[0] {
	case '\\', ' ':
		return true
	case '+':
		return !strings.HasPrefix(l, "+++ ")
	case '-':
		// "-- " is the signature separator git format-patch ends with.
		return !strings.HasPrefix(l, "--- ") && l != "-- "
	}
	return false
}

// parseRange parses "s" or "s,c" (an omitted count is 1).
func parseRange(r string) (int, int, error) {
	s, c, hasCount := strings.Cut(r, ",")
	start, err := strconv.Atoi(s)
	if err != nil || start < 0 {
		return 0, 0, tools.InvalidInput("Invalid line number `%s` in hunk header. Expected numeric unified-diff form "+
			"%s; use non-negative integers like `12` or `12,3`.", s, hunkForm)
	}
	count := 1
	if hasCount {
		if count, err = strconv.Atoi(c); err != nil || count < 0 {
			return 0, 0, tools.InvalidInput("Invalid line count `%s` in hunk header. Expected numeric unified-diff "+
				"form %s; use non-negative integers like `3`.", c, hunkForm)
		}
	}
	return start, count, nil
}
