// Package gitquote quotes a path the way git does in its output (C-style,
// core.quotepath), so a path with a newline or a quote never splits a line
// that a reader (git apply, the model, the File patch parser) splits on.
// It is the one definition the Git tool and File's diffs share.
package gitquote

import (
	"strconv"
	"strings"
)

// Name renders a path the way git's C-style quoting does: a name with
// a double quote, backslash or control character is wrapped in quotes with
// those bytes escaped (\t, \n, \" … or three octal digits). full also
// escapes bytes of 0x80 and above (core.quotepath=true, git's default);
// quoteSpace additionally quotes names that contain a space, as status's
// short formats do.
func Name(name string, full, quoteSpace bool) string {
	need := false
	for i := 0; i < len(name) && !need; i++ {
		need = mustQuote(name[i], full)
	}
	if !need {
		if quoteSpace && strings.Contains(name, " ") {
			return `"` + name + `"`
		}
		return name
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !mustQuote(c, full) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('\\')
		switch c {
		case '\a':
			b.WriteByte('a')
		case '\b':
			b.WriteByte('b')
		case '\t':
			b.WriteByte('t')
		case '\n':
			b.WriteByte('n')
		case '\v':
			b.WriteByte('v')
		case '\f':
			b.WriteByte('f')
		case '\r':
			b.WriteByte('r')
		case '"', '\\':
			b.WriteByte(c)
		default:
			o := strconv.FormatInt(int64(c), 8)
			b.WriteString(strings.Repeat("0", 3-len(o)) + o)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func mustQuote(c byte, full bool) bool {
	return c < 0x20 || c == '"' || c == '\\' || c == 0x7f || (full && c >= 0x80)
}
