package git

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/codewhale/codewhale/internal/lazyre"
	"github.com/codewhale/codewhale/internal/tools/budget"
)

// Units of git's output that a cut keeps whole, by action: a status line,
// a log entry, a diff's file sections (then its hunks), a blame line (a
// porcelain line's whole header block).
var (
	diffFileStart  = lazyre.New(`(?m)^diff --(git|cc|combined) `)
	diffHunkStart  = lazyre.New(`(?m)^@@`)
	logEntryStart  = lazyre.New(`(?m)^[0-9a-f]{40}\nAuthor: `)
	porcelainStart = lazyre.New(`(?m)^[0-9a-f]{40} \d+ \d+`)
	diffFileName   = lazyre.New(`(?m)^diff --git a/(.*) b/`)
	logDate        = lazyre.New(`(?m)^Date: (.*)$`)
)

// fitOutput sizes git's text to limit characters (the call's result budget
// or the contract's 40000, whichever is smaller). Over it, the text is cut
// at the end of the last whole unit that fits — so a diff is cut between
// files or hunks, a log between commits — and the contract's note follows,
// with what was left out and how to ask for it. It returns the content,
// whether it was cut and how many characters were omitted.
func fitOutput(r *request, text string, limit int) (string, bool, int) {
	text = strings.ToValidUTF8(text, "\uFFFD")
	total := budget.Runes(text)
	if total <= limit {
		return text, false, 0
	}
	names := &fileNames{text: text}
	note := func(kept, rest string) string {
		return fmt.Sprintf("\n\n[output truncated to %d characters; %d characters omitted] %s",
			budget.Runes(kept), total-budget.Runes(kept), r.moreHint(kept, rest, names))
	}
	cuts := unitEnds(r.action, text)
	// The search needs no cut past the first whose text alone is over the
	// limit (renderings grow with the cut): rendering the whole output
	// first, note and all, cost a long diff more than git took to make it.
	n, runes := 0, 0
	for n < len(cuts)-1 && runes <= limit {
		runes += budget.Runes(text[cuts[n]:cuts[n+1]])
		n++
	}
	out, k := budget.Prefix(n, limit, func(k int) string { return text[:cuts[k]] + note(text[:cuts[k]], text[cuts[k]:]) })
	kept := text[:cuts[k]]
	if budget.Runes(out) > limit || k == 0 {
		// Not even the first unit fits: cut inside it at a line break,
		// shrinking until the note (whose numbers and names change with
		// the cut) fits too.
		room := max(limit-budget.Runes(note("", text)), 0)
		for {
			kept = lineFloor(text, room)
			out = kept + note(kept, text[len(kept):])
			over := budget.Runes(out) - limit
			if over <= 0 || room == 0 {
				break
			}
			room = max(room-over, 0)
		}
	}
	return out, true, total - budget.Runes(kept)
}

// unitEnds lists the byte offsets a cut may end at, ascending, from 0 to
// len(text): the starts of the action's units (for diff and show, file
// sections, and hunks too when there are few files), else line ends.
func unitEnds(action, text string) []int {
	var starts [][]int
	switch action {
	case "diff", "show":
		starts = lineMatches(text, "diff --", diffFileStart())
		if len(starts) < 4 {
			starts = append(starts, diffHunkStart().FindAllStringIndex(text, -1)...)
		}
	case "log":
		starts = logEntryStart().FindAllStringIndex(text, -1)
	case "blame":
		starts = porcelainStart().FindAllStringIndex(text, -1)
	}
	ends := []int{0}
	for _, s := range starts {
		if s[0] > 0 {
			ends = append(ends, s[0])
		}
	}
	if len(ends) < 2 { // no structure found: whole lines
		for i, c := range []byte(text) {
			if c == '\n' {
				ends = append(ends, i+1)
			}
		}
	}
	slices.Sort(ends)
	return slices.Compact(append(ends, len(text)))
}

// lineFloor is the longest prefix of s with at most n characters that ends
// at a line break (or, for a first line longer than n, its first n
// characters).
func lineFloor(s string, n int) string {
	count := 0
	for i := range s {
		if count == n {
			if j := strings.LastIndexByte(s[:i], '\n'); j >= 0 {
				return s[:j+1]
			}
			return s[:i]
		}
		count++
	}
	return s
}

// moreHint says what the omitted part holds and which parameter gets it.
func (r *request) moreHint(kept, omitted string, names *fileNames) string {
	switch r.action {
	case "status":
		return fmt.Sprintf("%d more entries not shown; narrow with `path` (a directory or file).", strings.Count(omitted, "\n"))
	case "diff", "show":
		return r.diffHint(kept, omitted, names)
	case "log":
		shown := len(logEntryStart().FindAllStringIndex(kept, -1))
		hint := fmt.Sprintf("Showing %d commits; ask for fewer with `max_count`, or narrow with `path`, `since` or `author`.", shown)
		if d := logDate().FindAllStringSubmatch(kept, -1); len(d) > 0 {
			hint += " For older ones pass `until: " + d[len(d)-1][1] + "`."
		}
		return hint
	case "blame":
		shown := strings.Count(kept, "\n")
		if r.porcelain {
			shown = len(porcelainStart().FindAllStringIndex(kept, -1))
		}
		next := r.startLine + shown
		return fmt.Sprintf("Showing lines %d-%d; continue with `start_line: %d` (and a smaller `max_lines`).",
			r.startLine, next-1, next)
	}
	return ""
}

// diffHint names the files a cut diff or show left out (and the one it
// cut inside).
func (r *request) diffHint(kept, omitted string, index *fileNames) string {
	before, names := index.split(kept, omitted)
	partial := ""
	if len(before) > 0 && !diffFileStart().MatchString(firstLine(omitted)) {
		partial = before[len(before)-1]
	}
	alt := "`unified: 0` for less context"
	if r.action == "show" {
		alt = "`patch: false` for the stat alone"
	}
	switch {
	case partial != "" && len(names) == 0:
		return "Not shown: the rest of " + partial + "; ask for it alone with `path`, or use " + alt + "."
	case partial != "":
		return fmt.Sprintf("Not shown: the rest of %s, and the files %s. Ask for one with `path`, or use %s.",
			partial, nameList(names), alt)
	case len(names) == 0:
		return "The rest is not shown; narrow with `path`, or read a large file with File read and `start_line`."
	}
	return fmt.Sprintf("Files not shown: %s. Ask for one with `path`, or use %s.", nameList(names), alt)
}

// fileNames finds the file names of a diff's headers (diffFileName) once
// per text, for the several cuts fitOutput tries: matching the regular
// expression again in both halves of every cut made a long diff's note
// cost more than git's run (issue 32: a 40 ms `git diff HEAD~20` took the
// tool 120 ms).
type fileNames struct {
	text   string
	starts []int // byte offset of each header in text
	names  []string
	found  bool
}

// split returns the names in kept and in omitted, as diffFileName would
// find them in each (kept+omitted is a prefix split of text). A cut at a
// line start splits no header line, so the answer comes from the one scan
// of text; a cut inside a line (a first line longer than the budget) falls
// back to matching the halves.
func (f *fileNames) split(kept, omitted string) (before, after []string) {
	cut := len(kept)
	if f == nil || cut > len(f.text) || len(omitted) != len(f.text)-cut || kept != f.text[:cut] || omitted != f.text[cut:] || (cut > 0 && kept[cut-1] != '\n') {
		return matchNames(kept), matchNames(omitted)
	}
	if !f.found {
		for _, m := range lineMatches(f.text, "diff --git a/", diffFileName()) {
			f.starts, f.names = append(f.starts, m[0]), append(f.names, f.text[m[2]:m[3]])
		}
		f.found = true
	}
	i, _ := slices.BinarySearch(f.starts, cut)
	return f.names[:i], f.names[i:]
}

// lineMatches is re.FindAllStringSubmatchIndex(text, -1) for a regular
// expression anchored at a line start ((?m)^) whose matches stay inside one
// line and begin with lit: only lines that start with lit are matched, so a
// long diff is not run through the regexp engine line by line.
func lineMatches(text, lit string, re *regexp.Regexp) [][]int {
	var out [][]int
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], lit)
		if j < 0 {
			break
		}
		start := i + j
		end := len(text)
		if k := strings.IndexByte(text[start:], '\n'); k >= 0 {
			end = start + k
		}
		if start == 0 || text[start-1] == '\n' {
			if m := re.FindStringSubmatchIndex(text[start:end]); m != nil && m[0] == 0 {
				for x := range m {
					if m[x] >= 0 {
						m[x] += start
					}
				}
				out = append(out, m)
			}
		}
		i = end
	}
	return out
}

func matchNames(s string) []string {
	var names []string
	for _, m := range diffFileName().FindAllStringSubmatch(s, -1) {
		names = append(names, m[1])
	}
	return names
}

// nameList shows up to eight names, then "… (+k more)".
func nameList(names []string) string {
	if len(names) <= 8 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:8], ", ") + ", … (+" + strconv.Itoa(len(names)-8) + " more)"
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
