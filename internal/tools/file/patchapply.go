package file

import (
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

const (
	defaultFuzz = 3
	maxFuzz     = 50
	// minAnchorLines is how many context+removed lines a hunk needs before
	// it may be relocated to a unique match elsewhere in the file; shorter
	// anchors (a lone "}") occur too often to move safely.
	minAnchorLines = 4
)

// hunkStats counts how the hunks of one file applied.
type hunkStats struct {
	applied, fuzz, withFuzz, relocated int
}

// splitText splits content into lines without terminators ('\r' dropped).
func splitText(content string) []string {
	if content == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// joinText reassembles lines with base's line ending (CRLF when base has
// any) and base's trailing-newline state; a new (empty) base gets one.
func joinText(lines []string, base string) string {
	if len(lines) == 0 {
		return ""
	}
	eol := "\n"
	if strings.Contains(base, "\r\n") {
		eol = "\r\n"
	}
	out := strings.Join(lines, eol)
	if base == "" || strings.HasSuffix(base, "\n") {
		out += eol
	}
	return out
}

// applyHunks applies hunks in order. Each is tried at its stated line
// shifted by the earlier hunks' net offset, then up to fuzz lines either
// side (nearest first); an add-only hunk past the end appends; a hunk with
// enough anchor lines may then move to its unique match in the file.
func applyHunks(lines []string, hunks []hunk, fuzz int, label string) ([]string, hunkStats, error) {
	var st hunkStats
	offset := 0
	for i, h := range hunks {
		old := h.oldLines()
		base := h.oldStart - 1
		if h.oldCount == 0 {
			base = h.oldStart // "-s,0" inserts after line s
		}
		start := clamp(base+offset, 0, len(lines))
		pos, used, ok := locate(lines, old, start, fuzz)
		relocated := false
		if !ok && len(old) >= minAnchorLines {
			cands := allMatches(lines, old)
			if len(cands) > 1 {
				return nil, st, ambiguousHunk(i, len(hunks), label, h, cands)
			}
			if len(cands) == 1 {
				pos, ok, relocated = cands[0], true, true
			}
		}
		if !ok {
			return nil, st, hunkNotFound(i, len(hunks), label, lines, h, start, offset, fuzz)
		}
		repl := h.replacement(lines[pos : pos+len(old)])
		lines = append(lines[:pos:pos], append(repl, lines[pos+len(old):]...)...)
		offset += len(repl) - len(old)
		st.applied++
		if used > 0 {
			st.fuzz += used
			st.withFuzz++
		}
		if relocated {
			st.relocated++
		}
	}
	return lines, st, nil
}

// oldLines returns the lines the hunk expects: context and removed.
func (h hunk) oldLines() []string {
	var old []string
	for _, l := range h.lines {
		if l.kind != '+' {
			old = append(old, l.text)
		}
	}
	return old
}

// replacement is the new text for the matched old lines: context lines keep
// the file's own text (only trailing whitespace was compared), removed lines
// go, added lines come from the hunk.
func (h hunk) replacement(matched []string) []string {
	out := make([]string, 0, len(matched))
	k := 0
	for _, l := range h.lines {
		switch l.kind {
		case '+':
			out = append(out, strings.TrimSuffix(l.text, "\r"))
		case '-':
			k++
		default:
			out = append(out, matched[k])
			k++
		}
	}
	return out
}

// locate tries start, then start∓1, start±1, … up to fuzz lines away.
func locate(lines, old []string, start, fuzz int) (pos, used int, ok bool) {
	for d := 0; d <= fuzz; d++ {
		for _, p := range []int{start - d, start + d} {
			if p >= 0 && matchesAt(lines, old, p) {
				return p, d, true
			}
			if d == 0 {
				break
			}
		}
	}
	return 0, 0, false
}

// matchesAt compares with trailing whitespace trimmed on both sides.
func matchesAt(lines, old []string, p int) bool {
	if p+len(old) > len(lines) {
		return false
	}
	for i, o := range old {
		if strings.TrimRight(lines[p+i], " \t\r") != strings.TrimRight(o, " \t\r") {
			return false
		}
	}
	return true
}

func allMatches(lines, old []string) []int {
	var out []int
	for p := 0; p+len(old) <= len(lines); p++ {
		if matchesAt(lines, old, p) {
			out = append(out, p)
		}
	}
	return out
}

func hunkNotFound(i, n int, label string, lines []string, h hunk, start, offset, fuzz int) error {
	return tools.ExecutionFailed("Failed to apply hunk %d/%d for `%s`: could not find matching context near line %d "+
		"(searched around line %d with offset %+d and fuzz up to %d). Expected context preview:\n%s\n"+
		"File snippet near line %d:\n%s\nHints: the line numbers may be stale after earlier edits — call File with "+
		"action=\"read\" to re-check the current contents, make sure the patch matches the file, increase `fuzz`, "+
		"or regenerate the patch.", i+1, n, label, h.oldStart, start+1, offset, fuzz, expectedPreview(h),
		start+1, snippet(lines, start))
}

func ambiguousHunk(i, n int, label string, h hunk, cands []int) error {
	nums := make([]string, len(cands))
	for k, c := range cands {
		nums[k] = itoa(c + 1)
	}
	return tools.ExecutionFailed("Failed to apply hunk %d/%d for `%s`: could not find matching context near line %d, "+
		"and the hunk's context is ambiguous elsewhere in the file (lines %s), so it was not relocated. Hints: call "+
		"File with action=\"read\" to inspect those locations, then regenerate the patch with more context lines that "+
		"identify one block.", i+1, n, label, h.oldStart, strings.Join(nums, ", "))
}

// expectedPreview shows the first four context/removed lines of h.
func expectedPreview(h hunk) string {
	var out []string
	for _, l := range h.lines {
		if l.kind == '+' {
			continue
		}
		if len(out) == 4 {
			break
		}
		out = append(out, "  "+string(l.kind)+l.text)
	}
	if len(out) == 0 {
		return "  <no context lines in hunk>"
	}
	return strings.Join(out, "\n")
}

// snippet shows lines around 0-based index at, numbered from 1.
func snippet(lines []string, at int) string {
	if len(lines) == 0 {
		return "  <empty file>"
	}
	c := clamp(at, 0, len(lines)-1)
	var out []string
	for k := max(0, c-2); k <= min(len(lines)-1, c+2); k++ {
		out = append(out, fmt.Sprintf("  %4d: %s", k+1, lines[k]))
	}
	return strings.Join(out, "\n")
}
