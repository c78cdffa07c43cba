package file

import "strings"

// search_content's regex dialect is Go's RE2 syntax read the way ripgrep
// reads it where the two differ (the schema's `pattern` description says
// so):
//   - \w, \d, \s and \W, \D, \S are Unicode-aware, as in ripgrep (Go's are
//     ASCII-only): rgDialect rewrites them into Unicode classes. Inside a
//     bracket class \W and \S keep Go's ASCII meaning (a complement cannot
//     be written inside a class).
//   - \b and \B stay ASCII word boundaries (RE2 has no Unicode boundary);
//     a result whose pattern uses them says so (dialectNote).
//   - Lines end at \n, and a \r before it is not part of the line, so `$`
//     matches before CRLF: ripgrep's --crlf behaviour.
//   - Case-insensitive matching uses Unicode simple case folding, as both do.

// Unicode classes for ripgrep's \w (Alphabetic, marks, decimal digits,
// connector punctuation, join controls), \d (Nd) and \s (White_Space).
const (
	uniWord  = `\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\x{200C}\x{200D}`
	uniDigit = `\p{Nd}`
	uniSpace = `\t-\r\x{85}\p{Z}`
)

// rgDialect rewrites the Perl classes of pattern into Unicode ones, leaving
// everything else (escapes, \Q…\E quotes, \p{…} names) as written.
func rgDialect(pattern string) string {
	if !strings.Contains(pattern, `\`) {
		return pattern
	}
	var b strings.Builder
	inClass, quoted := false, false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case quoted:
			if c == '\\' && i+1 < len(pattern) && pattern[i+1] == 'E' {
				quoted = false
				b.WriteString(`\E`)
				i++
				continue
			}
			b.WriteByte(c)
		case c == '\\' && i+1 < len(pattern):
			i++
			b.WriteString(perlClass(pattern[i], inClass))
			if pattern[i] == 'Q' {
				quoted = true
			}
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' first in a class (after an optional '^') is a literal.
			if i+1 < len(pattern) && pattern[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(pattern) && pattern[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == '[' && inClass && i+1 < len(pattern) && pattern[i+1] == ':':
			if end := strings.Index(pattern[i:], ":]"); end >= 0 {
				b.WriteString(pattern[i : i+end+2]) // [:alpha:] and friends
				i += end + 1
				continue
			}
			b.WriteByte(c)
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// perlClass is the replacement text of the escape `\` + c.
func perlClass(c byte, inClass bool) string {
	wrap := func(set string, negate bool) string {
		switch {
		case inClass && !negate:
			return set
		case inClass:
			return `\` + string(c) // no complement inside a class: Go's meaning
		case negate:
			return "[^" + set + "]"
		}
		return "[" + set + "]"
	}
	switch c {
	case 'w':
		return wrap(uniWord, false)
	case 'W':
		return wrap(uniWord, true)
	case 's':
		return wrap(uniSpace, false)
	case 'S':
		return wrap(uniSpace, true)
	case 'd':
		return uniDigit
	case 'D':
		return `\P{Nd}`
	}
	return `\` + string(c)
}

// dialectNote is what a result says about a pattern whose meaning differs
// from ripgrep's here, or "".
func dialectNote(pattern string, literal bool) string {
	if literal || !(strings.Contains(pattern, `\b`) || strings.Contains(pattern, `\B`)) {
		return ""
	}
	return `\b and \B are ASCII word boundaries here (ripgrep's are Unicode): a match next to a non-ASCII letter can differ`
}
