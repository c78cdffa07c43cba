package git

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// statWidth is the width git's --stat uses when stdout is not a terminal.
const statWidth = 80

// statFile is one line of a diffstat.
type statFile struct {
	name           string
	added, deleted int
	binary         bool
}

// renderStat writes git's --stat block for the pairs: one scaled
// "name | count +++---" line per file and the summary line.
func (rp *repo) renderStat(b *strings.Builder, pairs []patchPair) {
	files := make([]statFile, 0, len(pairs))
	for _, p := range pairs {
		files = append(files, statOf(p))
	}
	if len(files) == 0 {
		return
	}
	maxLen, maxChange, numberWidth, binWidth := 0, 0, 0, 0
	for _, f := range files {
		maxLen = max(maxLen, utf8.RuneCountInString(f.name))
		if f.binary {
			binWidth = max(binWidth, 14+len(strconv.Itoa(f.added))+len(strconv.Itoa(f.deleted)))
			numberWidth = 3
			continue
		}
		maxChange = max(maxChange, f.added+f.deleted)
	}
	width := statWidth
	numberWidth = max(numberWidth, len(strconv.Itoa(maxChange)))
	width = max(width, 16+6+numberWidth)
	graphWidth := maxChange
	if maxChange+4 <= binWidth {
		graphWidth = binWidth - 4
	}
	nameWidth := maxLen
	if nameWidth+numberWidth+6+graphWidth > width {
		if graphWidth > width*3/8-numberWidth-6 {
			graphWidth = max(width*3/8-numberWidth-6, 6)
		}
		if nameWidth > width-numberWidth-6-graphWidth {
			nameWidth = width - numberWidth - 6 - graphWidth
		} else {
			graphWidth = width - numberWidth - 6 - nameWidth
		}
	}
	adds, dels := 0, 0
	for _, f := range files {
		b.WriteString(statLine(f, nameWidth, numberWidth, graphWidth, maxChange))
		if !f.binary {
			adds += f.added
			dels += f.deleted
		}
	}
	b.WriteString(statSummary(len(files), adds, dels))
}

func statLine(f statFile, nameWidth, numberWidth, graphWidth, maxChange int) string {
	name, prefix := f.name, ""
	room := nameWidth
	if n := utf8.RuneCountInString(name); nameWidth < n {
		prefix, room = "...", max(room-3, 0)
		for ; n > room; n-- {
			_, size := utf8.DecodeRuneInString(name)
			name = name[size:]
		}
		if i := strings.IndexByte(name, '/'); i >= 0 {
			name = name[i:]
		}
	}
	pad := strings.Repeat(" ", max(room-utf8.RuneCountInString(name), 0))
	if f.binary {
		line := fmt.Sprintf(" %s%s%s | %*s", prefix, name, pad, numberWidth, "Bin")
		if f.added == 0 && f.deleted == 0 {
			return line + "\n"
		}
		return fmt.Sprintf("%s %d -> %d bytes\n", line, f.deleted, f.added)
	}
	add, del := f.added, f.deleted
	if graphWidth <= maxChange {
		total := scaleLinear(add+del, graphWidth, maxChange)
		if total < 2 && add > 0 && del > 0 {
			total = 2
		}
		if add < del {
			add = scaleLinear(add, graphWidth, maxChange)
			del = total - add
		} else {
			del = scaleLinear(del, graphWidth, maxChange)
			add = total - del
		}
	}
	sep := ""
	if f.added+f.deleted > 0 {
		sep = " "
	}
	return fmt.Sprintf(" %s%s%s | %*d%s%s%s\n", prefix, name, pad, numberWidth, f.added+f.deleted, sep,
		strings.Repeat("+", add), strings.Repeat("-", del))
}

func scaleLinear(it, width, maxChange int) int {
	if it == 0 {
		return 0
	}
	return 1 + it*(width-1)/maxChange
}

func statSummary(files, adds, dels int) string {
	s := fmt.Sprintf(" %d file%s changed", files, plural(files, "s"))
	if adds > 0 || dels == 0 {
		s += fmt.Sprintf(", %d insertion%s(+)", adds, plural(adds, "s"))
	}
	if dels > 0 || adds == 0 {
		s += fmt.Sprintf(", %d deletion%s(-)", dels, plural(dels, "s"))
	}
	return s + "\n"
}

func plural(n int, s string) string {
	if n == 1 {
		return ""
	}
	return s
}

// statOf counts a pair's changed lines, or its sizes when binary.
func statOf(p patchPair) statFile {
	c := p.change
	var oldData, newData []byte
	if c.status != 'A' {
		oldData = p.oldData()
	}
	if c.status != 'D' {
		newData = p.newData()
	}
	f := statFile{name: quoteName(c.key(), true, false)}
	if c.status == 'R' {
		f.name = renameName(c.from.path, c.to.path)
	}
	if isBinary(oldData) || isBinary(newData) {
		f.binary = true
		if string(oldData) != string(newData) {
			f.added, f.deleted = len(newData), len(oldData)
		}
		return f
	}
	for _, ch := range diffLines(splitLines(string(oldData)), splitLines(string(newData))) {
		f.added += ch.chg2
		f.deleted += ch.chg1
	}
	return f
}

// renameName is git's "dir/{old => new}/rest" rendering of a rename.
func renameName(a, b string) string {
	if qa, qb := quoteName(a, true, false), quoteName(b, true, false); qa != a || qb != b {
		return qa + " => " + qb
	}
	pfx := 0
	for i := 0; i < len(a) && i < len(b) && a[i] == b[i]; i++ {
		if a[i] == '/' {
			pfx = i + 1
		}
	}
	sfx := 0
	adjust := 0
	if pfx > 0 {
		adjust = 1
	}
	for i, j := len(a), len(b); i >= pfx-adjust && j >= pfx-adjust && byteAt(a, i) == byteAt(b, j); i, j = i-1, j-1 {
		if byteAt(a, i) == '/' {
			sfx = len(a) - i
		}
	}
	aMid, bMid := max(len(a)-pfx-sfx, 0), max(len(b)-pfx-sfx, 0)
	if pfx+sfx == 0 {
		return a[pfx:pfx+aMid] + " => " + b[pfx:pfx+bMid]
	}
	return a[:pfx] + "{" + a[pfx:pfx+aMid] + " => " + b[pfx:pfx+bMid] + "}" + a[len(a)-sfx:]
}

// byteAt is s[i], with the terminating NUL C strings have at len(s).
func byteAt(s string, i int) byte {
	if i >= len(s) {
		return 0
	}
	return s[i]
}
