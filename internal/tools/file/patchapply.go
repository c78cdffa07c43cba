package file

import (
	"errors"
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

const (
	defaultFuzz = 3
	maxFuzz     = 50
)

// hunkStats counts how the hunks of one file applied.
type hunkStats struct {
	applied, fuzz, withFuzz, relocated int
}

// fileLine is one line of a patched file: its text and its terminator
// ("\n" or "\r\n"; "" only for a last line without one).
type fileLine struct{ text, eol string }

// fileText is a file as lines, each keeping its own terminator, so a patch
// changes only the lines it names: mixed line endings survive, and git's
// "\ No newline at end of file" can be honoured both ways.
type fileText struct {
	lines []fileLine
	final bool // the last line ends with a newline (true for an empty file, so added lines get one)
}

func splitFile(s string) fileText {
	ft := fileText{final: true}
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			ft.lines = append(ft.lines, fileLine{s, ""})
			ft.final = false
			break
		}
		l, eol := s[:i], "\n"
		if strings.HasSuffix(l, "\r") {
			l, eol = l[:len(l)-1], "\r\n"
		}
		ft.lines = append(ft.lines, fileLine{l, eol})
		s = s[i+1:]
	}
	return ft
}

func (ft fileText) String() string {
	var b strings.Builder
	def := ft.defaultEOL()
	for i, l := range ft.lines {
		b.WriteString(l.text)
		if i < len(ft.lines)-1 || ft.final {
			if l.eol == "" {
				l.eol = def
			}
			b.WriteString(l.eol)
		}
	}
	return b.String()
}

// defaultEOL is the file's prevailing terminator: CRLF when most of its
// lines end that way.
func (ft fileText) defaultEOL() string {
	crlf := 0
	for _, l := range ft.lines {
		if l.eol == "\r\n" {
			crlf++
		}
	}
	if crlf*2 > len(ft.lines) {
		return "\r\n"
	}
	return "\n"
}

// applyHunks applies hunks in order (see placeHunk for where each goes).
func applyHunks(ft fileText, hunks []hunk, fuzz int, label string) (fileText, hunkStats, error) {
	var st hunkStats
	offset := 0
	for i, h := range hunks {
		old := h.oldLines()
		base := h.oldStart - 1
		if h.oldCount == 0 {
			base = h.oldStart // "-s,0" inserts after line s
		}
		start := clamp(base+offset, 0, len(ft.lines))
		pos, used, relocated, err := placeHunk(ft, h, old, start, fuzz)
		if err != nil {
			return ft, st, hunkError(err, i, len(hunks), label, ft, h, start, offset, fuzz)
		}
		atEnd := pos+len(old) == len(ft.lines)
		if h.newNoEOL && !atEnd {
			return ft, st, tools.ExecutionFailed("Failed to apply hunk %d/%d for `%s`: its last line is marked "+
				"\"\\ No newline at end of file\", but its context matches at line %d, which is not the end of the "+
				"file. Regenerate the patch against the current file.", i+1, len(hunks), label, pos+1)
		}
		repl := h.replacement(ft.lines[pos:pos+len(old)], ft.defaultEOL())
		ft.lines = append(ft.lines[:pos:pos], append(repl, ft.lines[pos+len(old):]...)...)
		if atEnd && (h.oldNoEOL || h.newNoEOL) {
			ft.final = !h.newNoEOL
		}
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
	return ft, st, nil
}

// placeHunk finds where a hunk's old lines are. It tries the stated line
// (start), then up to fuzz lines either side, nearest first. Past that, like
// `git apply`, it searches the whole file at any offset — but where git takes
// the nearest of several matches, this takes only a unique one and refuses
// an ambiguous hunk (errAmbiguous), since a model's stale line numbers say
// little about which copy it meant. A hunk whose old side ends without a
// newline can only match at the end of the file. A hunk with no old lines
// goes at start.
func placeHunk(ft fileText, h hunk, old []string, start, fuzz int) (pos, used int, relocated bool, err error) {
	if len(old) == 0 {
		return start, 0, false, nil
	}
	fits := func(p int) bool {
		return matchesAt(ft.lines, old, p) && (!h.oldNoEOL || p+len(old) == len(ft.lines))
	}
	for d := 0; d <= fuzz; d++ {
		for _, p := range []int{start - d, start + d} {
			if p >= 0 && fits(p) {
				return p, d, false, nil
			}
			if d == 0 {
				break
			}
		}
	}
	var cands []int
	for p := 0; p+len(old) <= len(ft.lines); p++ {
		if fits(p) {
			cands = append(cands, p)
		}
	}
	switch len(cands) {
	case 0:
		return 0, 0, false, errNoMatch
	case 1:
		return cands[0], 0, true, nil
	}
	return 0, 0, false, &ambiguousError{cands}
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
// the file's own text and terminator (only trailing whitespace was
// compared), removed lines go, added lines come from the hunk with the
// terminator addedEOL picks.
func (h hunk) replacement(matched []fileLine, def string) []fileLine {
	out := make([]fileLine, 0, len(matched))
	eol := h.addedEOL(matched, def)
	k := 0
	for _, l := range h.lines {
		switch l.kind {
		case '+':
			out = append(out, eol(l.text))
		case '-':
			k++
		default:
			out = append(out, matched[k])
			k++
		}
	}
	return out
}

// addedEOL decides the terminator of added lines. A hunk that shows '\r's
// is literal (git's diff of a CRLF file shows them), so each added line ends
// as written. Otherwise the patch was written without them: added lines
// follow the matched lines when those agree (CRLF only if all are CRLF), and
// the file's prevailing terminator when there are none to follow.
func (h hunk) addedEOL(matched []fileLine, def string) func(string) fileLine {
	for _, l := range h.lines {
		if strings.HasSuffix(l.text, "\r") {
			return func(t string) fileLine {
				if t, ok := strings.CutSuffix(t, "\r"); ok {
					return fileLine{t, "\r\n"}
				}
				return fileLine{t, "\n"}
			}
		}
	}
	crlf, lf := 0, 0
	for _, m := range matched {
		switch m.eol {
		case "\n":
			lf++
		case "\r\n":
			crlf++
		}
	}
	eol := def
	if lf > 0 {
		eol = "\n"
	} else if crlf > 0 {
		eol = "\r\n"
	}
	return func(t string) fileLine { return fileLine{t, eol} }
}

// matchesAt compares with trailing whitespace trimmed on both sides.
func matchesAt(lines []fileLine, old []string, p int) bool {
	if p+len(old) > len(lines) {
		return false
	}
	for i, o := range old {
		if strings.TrimRight(lines[p+i].text, " \t\r") != strings.TrimRight(o, " \t\r") {
			return false
		}
	}
	return true
}

// errNoMatch and ambiguousError are placeHunk's failures; hunkError words
// them for the model.
var errNoMatch = errors.New("no match")

type ambiguousError struct{ at []int }

func (e *ambiguousError) Error() string { return "ambiguous" }

func hunkError(err error, i, n int, label string, ft fileText, h hunk, start, offset, fuzz int) error {
	var a *ambiguousError
	if errors.As(err, &a) {
		nums := make([]string, len(a.at))
		for k, c := range a.at {
			nums[k] = itoa(c + 1)
		}
		return tools.ExecutionFailed("Failed to apply hunk %d/%d for `%s`: could not find matching context near line %d, "+
			"and the hunk's context is ambiguous elsewhere in the file (lines %s), so it was not relocated. Hints: call "+
			"File with action=\"read\" to inspect those locations, then regenerate the patch with more context lines that "+
			"identify one block.", i+1, n, label, h.oldStart, strings.Join(nums, ", "))
	}
	eofNote := ""
	if h.oldNoEOL {
		eofNote = " Its old side ends with \"\\ No newline at end of file\", so it can only match the file's last lines."
	}
	return tools.ExecutionFailed("Failed to apply hunk %d/%d for `%s`: could not find matching context near line %d "+
		"(searched around line %d with offset %+d and fuzz up to %d, then the whole file).%s Expected context preview:\n%s\n"+
		"File snippet near line %d:\n%s\nHints: the line numbers may be stale after earlier edits — call File with "+
		"action=\"read\" to re-check the current contents, make sure the patch matches the file, or regenerate the "+
		"patch.", i+1, n, label, h.oldStart, start+1, offset, fuzz, eofNote, expectedPreview(h), start+1, snippet(ft.lines, start))
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
		out = append(out, "  "+string(l.kind)+strings.TrimSuffix(l.text, "\r"))
	}
	if len(out) == 0 {
		return "  <no context lines in hunk>"
	}
	return strings.Join(out, "\n")
}

// snippet shows lines around 0-based index at, numbered from 1.
func snippet(lines []fileLine, at int) string {
	if len(lines) == 0 {
		return "  <empty file>"
	}
	c := clamp(at, 0, len(lines)-1)
	var out []string
	for k := max(0, c-2); k <= min(len(lines)-1, c+2); k++ {
		out = append(out, fmt.Sprintf("  %4d: %s", k+1, lines[k].text))
	}
	return strings.Join(out, "\n")
}
