package file

import (
	"strconv"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

const hunkForm = "`@@ -old_start,old_count +new_start,new_count @@` (example: `@@ -12,3 +12,5 @@`)"

// hunkLine is one body line of a hunk: kind ' ' (context), '-' or '+'.
type hunkLine struct {
	kind byte
	text string
}

type hunk struct {
	oldStart, oldCount int
	lines              []hunkLine
}

// filePatch is one file section of a unified diff.
type filePatch struct {
	path    string
	hunks   []hunk
	created bool // old side is /dev/null
	deleted bool // new side is /dev/null
}

// parsedPatch is a whole diff: its file sections in order and any hunks that
// came before the first header.
type parsedPatch struct {
	files []filePatch
	loose []hunk
}

func (p parsedPatch) hunkCount() int {
	n := len(p.loose)
	for _, f := range p.files {
		n += len(f.hunks)
	}
	return n
}

// headerPaths lists the distinct paths the headers name, in order.
func (p parsedPatch) headerPaths() []string {
	var out []string
	for _, f := range p.files {
		if !contains(out, f.path) {
			out = append(out, f.path)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// patchLines splits a patch into lines without their '\n' or '\r\n'.
func patchLines(text string) []string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// parseUnified parses a unified diff. `diff --git` lines separate files;
// `--- old` / `+++ new` headers name them (a/ b/ prefixes and tab-separated
// timestamps stripped, /dev/null for a created or deleted side); other
// preamble lines are ignored.
func parseUnified(text string) (parsedPatch, error) {
	var p parsedPatch
	var cur *filePatch
	var pendingOld *string
	flush := func() {
		if cur != nil {
			p.files = append(p.files, *cur)
			cur = nil
		}
	}
	lines := patchLines(text)
	for i := 0; i < len(lines); {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "diff --git "):
			flush()
			pendingOld = nil
			i++
		case strings.HasPrefix(l, "--- "):
			old := l[4:]
			pendingOld = &old
			i++
		case strings.HasPrefix(l, "+++ "):
			flush()
			sec, err := section(pendingOld, l[4:])
			if err != nil {
				return p, err
			}
			cur, pendingOld = &sec, nil
			i++
		case strings.HasPrefix(l, "@@"):
			if cur == nil && pendingOld != nil {
				return p, tools.InvalidInput("Patch hunk encountered after `--- %s` but before a matching `+++` "+
					"header. Each file section must include both headers.", strings.TrimSpace(*pendingOld))
			}
			h, next, err := parseHunk(lines, i)
			if err != nil {
				return p, err
			}
			if cur == nil {
				p.loose = append(p.loose, h)
			} else {
				cur.hunks = append(cur.hunks, h)
			}
			i = next
		default:
			i++
		}
	}
	flush()
	return p, nil
}

// section builds a file section from its headers.
func section(oldRaw *string, newRaw string) (filePatch, error) {
	newPath, newOK := diffPath(newRaw)
	oldPath, oldOK := "", false
	if oldRaw != nil {
		oldPath, oldOK = diffPath(*oldRaw)
	}
	path := newPath
	if !newOK {
		path = oldPath
	}
	if !newOK && !oldOK {
		return filePatch{}, tools.InvalidInput("Patch is missing both old and new file paths")
	}
	return filePatch{path: path, created: oldRaw != nil && !oldOK, deleted: !newOK}, nil
}

// diffPath normalises a header path; ok is false for /dev/null or empty.
func diffPath(raw string) (string, bool) {
	if i := strings.IndexByte(raw, '\t'); i >= 0 {
		raw = raw[:i]
	}
	raw = strings.TrimSpace(raw)
	if raw == "" || raw == "/dev/null" || raw == "dev/null" {
		return "", false
	}
	if strings.HasPrefix(raw, "a/") || strings.HasPrefix(raw, "b/") {
		raw = raw[2:]
	}
	return raw, true
}

// parseHunk parses the hunk whose header is lines[i] and returns the index
// after its body. The header's counts delimit the body, so a body line that
// looks like a header (a removed "-- x") is not taken for one; lines past
// the counts are still taken while they are unambiguous body lines, since
// models often miscount.
func parseHunk(lines []string, i int) (hunk, int, error) {
	header := lines[i]
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
		switch {
		case strings.HasPrefix(l, "\\"):
			continue
		case l == "":
			h.lines = append(h.lines, hunkLine{' ', ""})
			oldRem, newRem = oldRem-1, newRem-1
		case l[0] == '-':
			h.lines = append(h.lines, hunkLine{'-', l[1:]})
			oldRem--
		case l[0] == '+':
			h.lines = append(h.lines, hunkLine{'+', l[1:]})
			newRem--
		case l[0] == ' ':
			h.lines = append(h.lines, hunkLine{' ', l[1:]})
			oldRem, newRem = oldRem-1, newRem-1
		default:
			h.lines = append(h.lines, hunkLine{' ', l})
			oldRem, newRem = oldRem-1, newRem-1
		}
	}
	return h, j, nil
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
		return !strings.HasPrefix(l, "--- ")
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
