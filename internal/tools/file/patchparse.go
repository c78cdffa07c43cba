package file

import (
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

const hunkForm = "`@@ -old_start,old_count +new_start,new_count @@` (example: `@@ -12,3 +12,5 @@`)"

// hunkLine is one body line of a hunk: kind ' ' (context), '-' or '+'. text
// has no '\n'; a trailing '\r' is kept, since it is part of a CRLF line in
// the patched file (a patch whose every line ends in CRLF was converted in
// transport, and patchLines drops those).
type hunkLine struct {
	kind byte
	text string
}

// hunk is one `@@` block. oldNoEOL and newNoEOL record git's "\ No newline
// at end of file" after the last old-side (context or removed) and the last
// new-side (context or added) line.
type hunk struct {
	oldStart, oldCount int
	lines              []hunkLine
	oldNoEOL, newNoEOL bool
}

// filePatch is one file section of a unified or git diff. path is the
// target (the new side; the old side for a deletion). A rename or copy reads
// oldPath and writes path.
type filePatch struct {
	path    string
	oldPath string
	rename  bool
	copy    bool
	hunks   []hunk
	created bool   // the old side is /dev/null or git says "new file mode"
	deleted bool   // the new side is /dev/null or git says "deleted file mode"
	newMode string // git's new mode ("100644", "100755") when the section sets one

	mayCreate bool // create_if_missing: a missing target starts empty

	// Set while parsing; sections() refuses the whole patch on them.
	binary  bool   // "GIT binary patch" or "Binary files … differ"
	special string // a symlink (120000) or submodule (160000) mode the section names
	git     bool   // the section began with "diff --git"
	hasNew  bool   // a "+++" header was read
}

// metaOnly reports whether a git section changes a file without hunks: a
// rename, a copy, a mode change, or an empty file created or deleted.
func (f filePatch) metaOnly() bool {
	return f.git && (f.rename || f.copy || f.newMode != "" || f.created || f.deleted)
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

// patchLines splits a patch into lines without their '\n'. A patch whose
// every line ends in "\r\n" was converted in transport and loses the '\r's;
// otherwise a '\r' before '\n' is part of the line (git shows a CRLF file's
// lines that way) and only header parsing ignores it.
func patchLines(text string) []string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for _, l := range lines {
		if !strings.HasSuffix(l, "\r") {
			return lines
		}
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// parser holds the state of parseUnified between lines.
type parser struct {
	p          parsedPatch
	cur        *filePatch
	pendingOld *string
}

func (ps *parser) flush() {
	if ps.cur != nil {
		ps.p.files = append(ps.p.files, *ps.cur)
		ps.cur = nil
	}
}

// parseUnified parses a unified diff. `diff --git` lines separate files and
// may carry git's extended headers (modes, renames, copies, binary
// markers); `--- old` / `+++ new` headers name the files (a/ b/ prefixes,
// C-style quoting and tab-separated timestamps handled, /dev/null for a
// created or deleted side); other preamble lines are ignored.
func parseUnified(text string) (parsedPatch, error) {
	ps := &parser{}
	lines := patchLines(text)
	for i := 0; i < len(lines); {
		l := strings.TrimSuffix(lines[i], "\r")
		switch {
		case strings.HasPrefix(l, "diff --git "):
			ps.flush()
			ps.pendingOld = nil
			ps.cur = gitSection(l[len("diff --git "):])
			i++
		case strings.HasPrefix(l, "diff --cc ") || strings.HasPrefix(l, "diff --combined "):
			return ps.p, tools.InvalidInput("Patch contains a combined (merge) diff `%s`; File patch applies two-sided diffs only and nothing was written. Diff the merge against one parent (`git diff A B`).", l)
		case ps.inGitHeader() && gitHeaderLine(ps.cur, l):
			i++
		case strings.HasPrefix(l, "--- "):
			old := l[4:]
			ps.pendingOld = &old
			i++
		case strings.HasPrefix(l, "+++ "):
			if err := ps.newHeader(l[4:]); err != nil {
				return ps.p, err
			}
			i++
		case strings.HasPrefix(l, "@@"):
			next, err := ps.hunk(lines, i)
			if err != nil {
				return ps.p, err
			}
			i = next
		default:
			i++
		}
	}
	ps.flush()
	return ps.p, nil
}

// inGitHeader reports whether the parser is between a `diff --git` line and
// the section's first hunk, where git's extended headers live.
func (ps *parser) inGitHeader() bool {
	return ps.cur != nil && ps.cur.git && !ps.cur.hasNew && len(ps.cur.hunks) == 0 && ps.pendingOld == nil
}

// newHeader handles a `+++` line: it completes the current git section's
// names, or starts a plain section.
func (ps *parser) newHeader(raw string) error {
	if ps.cur != nil && ps.cur.git && !ps.cur.hasNew && len(ps.cur.hunks) == 0 {
		if err := ps.cur.setHeaderPaths(ps.pendingOld, raw); err != nil {
			return err
		}
		ps.pendingOld = nil
		return nil
	}
	ps.flush()
	sec := filePatch{}
	if err := sec.setHeaderPaths(ps.pendingOld, raw); err != nil {
		return err
	}
	ps.cur, ps.pendingOld = &sec, nil
	return nil
}

// setHeaderPaths applies the `---`/`+++` names to f. In a git section a
// rename's or copy's names come from its own headers and are kept.
func (f *filePatch) setHeaderPaths(oldRaw *string, newRaw string) error {
	newPath, newOK := diffPath(newRaw)
	oldPath, oldOK := "", false
	if oldRaw != nil {
		oldPath, oldOK = diffPath(*oldRaw)
	}
	if !newOK && !oldOK {
		return tools.InvalidInput("Patch is missing both old and new file paths")
	}
	f.hasNew = true
	if oldRaw != nil && !oldOK {
		f.created = true
	}
	if !newOK {
		f.deleted = true
	}
	if f.rename || f.copy {
		return nil
	}
	if newOK {
		f.path = newPath
	} else {
		f.path = oldPath
	}
	return nil
}

// hunk parses the hunk whose header is lines[i] into the current section
// (or the loose hunks before any header) and returns the next line index.
func (ps *parser) hunk(lines []string, i int) (int, error) {
	if ps.cur == nil && ps.pendingOld != nil {
		return 0, tools.InvalidInput("Patch hunk encountered after `--- %s` but before a matching `+++` "+
			"header. Each file section must include both headers.", strings.TrimSpace(*ps.pendingOld))
	}
	if ps.cur != nil && ps.pendingOld != nil && !ps.cur.hasNew {
		return 0, tools.InvalidInput("Patch hunk encountered after `--- %s` but before a matching `+++` "+
			"header. Each file section must include both headers.", strings.TrimSpace(*ps.pendingOld))
	}
	h, next, err := parseHunk(lines, i)
	if err != nil {
		return 0, err
	}
	if ps.cur == nil {
		ps.p.loose = append(ps.p.loose, h)
	} else {
		ps.cur.hunks = append(ps.cur.hunks, h)
	}
	return next, nil
}
