package file

import (
	"strconv"
	"strings"
)

// gitSection starts a section from the names on a `diff --git` line. They
// are what a section without `---`/`+++` (a pure rename, a mode change, an
// empty file) is known by; later headers override them.
func gitSection(names string) *filePatch {
	f := &filePatch{git: true}
	oldName, newName := gitHeaderNames(names)
	f.path = newName
	if f.path == "" {
		f.path = oldName
	}
	return f
}

// gitHeaderNames splits "a/x b/y" (either side possibly C-quoted). Unquoted
// names may contain spaces, so, as git does, the split that gives two equal
// names wins; otherwise the last " b/" separates them.
func gitHeaderNames(s string) (string, string) {
	if strings.HasPrefix(s, `"`) {
		first, rest, ok := cutQuoted(s)
		if !ok {
			return "", ""
		}
		second, _ := diffPath(strings.TrimPrefix(rest, " "))
		first, _ = diffPath(first)
		return first, second
	}
	if i := strings.Index(s, ` "`); i >= 0 {
		first, _ := diffPath(s[:i])
		second, _ := diffPath(s[i+1:])
		return first, second
	}
	if n := len(s); n%2 == 1 && s[n/2] == ' ' {
		a, _ := diffPath(s[:n/2])
		b, _ := diffPath(s[n/2+1:])
		if a == b {
			return a, b
		}
	}
	if i := strings.LastIndex(s, " b/"); i >= 0 {
		a, _ := diffPath(s[:i])
		b, _ := diffPath(s[i+1:])
		return a, b
	}
	return "", ""
}

// cutQuoted splits a leading C-quoted token off s and returns it (still
// quoted) and the rest.
func cutQuoted(s string) (string, string, bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return s[:i+1], s[i+1:], true
		}
	}
	return "", "", false
}

// gitHeaderLine reads one of git's extended header lines into f and reports
// whether l was one.
func gitHeaderLine(f *filePatch, l string) bool {
	key, val, _ := strings.Cut(l, " ")
	switch {
	case strings.HasPrefix(l, "old mode "):
		f.noteMode(strings.TrimPrefix(l, "old mode "))
	case strings.HasPrefix(l, "new mode "):
		f.newMode = strings.TrimSpace(strings.TrimPrefix(l, "new mode "))
		f.noteMode(f.newMode)
	case strings.HasPrefix(l, "new file mode "):
		f.created = true
		f.newMode = strings.TrimSpace(strings.TrimPrefix(l, "new file mode "))
		f.noteMode(f.newMode)
	case strings.HasPrefix(l, "deleted file mode "):
		f.deleted = true
		f.noteMode(strings.TrimPrefix(l, "deleted file mode "))
	case strings.HasPrefix(l, "rename from ") || strings.HasPrefix(l, "copy from "):
		f.rename, f.copy = key == "rename", key == "copy"
		f.oldPath = unquotePath(strings.SplitN(val, " ", 2)[1])
	case strings.HasPrefix(l, "rename to ") || strings.HasPrefix(l, "copy to "):
		f.path = unquotePath(strings.SplitN(val, " ", 2)[1])
	case strings.HasPrefix(l, "index "):
		if fields := strings.Fields(l); len(fields) == 3 {
			f.noteMode(fields[2])
		}
	case strings.HasPrefix(l, "similarity index ") || strings.HasPrefix(l, "dissimilarity index "):
	case l == "GIT binary patch" || (strings.HasPrefix(l, "Binary files ") && strings.HasSuffix(l, " differ")):
		f.binary = true
	default:
		return false
	}
	return true
}

// noteMode records a symlink or submodule mode, which File cannot write.
func (f *filePatch) noteMode(mode string) {
	switch mode = strings.TrimSpace(mode); mode {
	case "120000", "160000":
		f.special = mode
	}
}

// diffPath normalises a header path; ok is false for /dev/null or empty.
// A C-quoted name ("a/\303\244.txt") is unquoted; a tab ends the name
// (diff -u appends a timestamp after one).
func diffPath(raw string) (string, bool) {
	raw = strings.TrimLeft(raw, " ")
	if strings.HasPrefix(raw, `"`) {
		if q, _, ok := cutQuoted(raw); ok {
			raw = unquotePath(q)
		}
	} else {
		if i := strings.IndexByte(raw, '\t'); i >= 0 {
			raw = raw[:i]
		}
		raw = strings.TrimRight(raw, " \r")
	}
	if raw == "" || raw == "/dev/null" || raw == "dev/null" {
		return "", false
	}
	if strings.HasPrefix(raw, "a/") || strings.HasPrefix(raw, "b/") {
		raw = raw[2:]
	}
	return raw, true
}

// unquotePath undoes git's C-style quoting of a path (core.quotepath);
// Go's rules for double-quoted strings are a superset of git's escapes.
func unquotePath(s string) string {
	s = strings.TrimRight(s, "\r")
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}
