package git

import (
	"errors"
	"regexp"
	"strings"
)

var errUnsupportedRE = errors.New("unsupported regular expression")

// compileBRE translates a POSIX basic regular expression (git's default
// for --author) into Go syntax: \( \) \{ \} \| \+ \? are the operators and
// their bare forms are literals; '*' at the start is literal; '^' and '$'
// anchor only at the ends. GNU escapes such as \< or \w are refused, so the
// caller can fall back to the git binary.
func compileBRE(pattern string) (*regexp.Regexp, error) {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\':
			if i+1 >= len(pattern) {
				return nil, errUnsupportedRE
			}
			i++
			switch n := pattern[i]; n {
			case '(', ')', '{', '}', '|', '+', '?':
				b.WriteByte(n)
			case '.', '*', '[', ']', '^', '$', '\\', '/', '-', '"', '\'', ' ':
				b.WriteString(regexp.QuoteMeta(string(n)))
			default:
				return nil, errUnsupportedRE
			}
		case c == '[':
			end := bracketEnd(pattern, i)
			if end < 0 {
				return nil, errUnsupportedRE
			}
			b.WriteString(strings.ReplaceAll(pattern[i:end+1], `\`, `\\`))
			i = end
		case c == '*' && (i == 0 || (i == 1 && pattern[0] == '^')):
			b.WriteString(`\*`)
		case c == '^' && i > 0, c == '$' && i < len(pattern)-1:
			b.WriteString(regexp.QuoteMeta(string(c)))
		case strings.IndexByte("+?(){}|", c) >= 0:
			b.WriteString(regexp.QuoteMeta(string(c)))
		default:
			b.WriteByte(c)
		}
	}
	return regexp.Compile(b.String())
}

// bracketEnd finds the ']' closing the bracket expression at i, honouring a
// leading ']' or '^]' and [:class:] names.
func bracketEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		if p[j] == '[' && j+1 < len(p) && p[j+1] == ':' {
			if k := strings.Index(p[j+2:], ":]"); k >= 0 {
				j += k + 3
				continue
			}
		}
		if p[j] == ']' {
			return j
		}
	}
	return -1
}
