package ignore

import (
	"bufio"
	"bytes"
	"strings"
)

// rule is one line of an ignore file.
type rule struct {
	pattern  string
	negate   bool
	dirOnly  bool
	anchored bool // the pattern contained a slash other than a trailing one
}

// File is the rules of one ignore file. They apply to paths below base (a
// '/'-separated directory relative to the matcher's root, "" for the root
// itself or for a file that applies everywhere), and within the file the
// last matching rule decides, as in git.
type File struct {
	base  string
	rules []rule
}

// Parse reads ignore-file text (gitignore(5) syntax) whose rules apply below
// base. It returns nil when the text holds no rule.
func Parse(data []byte, base string) *File {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")) // git skips a UTF-8 BOM
	f := &File{base: base}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if r, ok := parseLine(sc.Text()); ok {
			f.rules = append(f.rules, r)
		}
	}
	if len(f.rules) == 0 {
		return nil
	}
	return f
}

func parseLine(line string) (rule, bool) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return rule{}, false
	}
	line = trimUnescapedSpaces(line)
	var r rule
	if line != "" && line[0] == '!' {
		r.negate, line = true, line[1:]
	} else if len(line) > 1 && line[0] == '\\' && (line[1] == '!' || line[1] == '#') {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly, line = true, strings.TrimSuffix(line, "/")
	}
	if strings.Contains(line, "/") {
		r.anchored, line = true, strings.TrimPrefix(line, "/")
	}
	if line == "" {
		return rule{}, false
	}
	r.pattern = line
	return r, true
}

// trimUnescapedSpaces drops trailing spaces unless backslash-escaped.
func trimUnescapedSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		if end >= 2 && s[end-2] == '\\' {
			break
		}
		end--
	}
	return s[:end]
}

// Match reports whether a rule of f matches rel (a path relative to the
// matcher's root) and, if one does, whether the last matching rule ignores
// it (false: a negation re-includes it).
func (f *File) Match(rel string, isDir bool) (hit, ignored bool) {
	sub := rel
	if f.base != "" {
		if len(rel) <= len(f.base) || rel[len(f.base)] != '/' || rel[:len(f.base)] != f.base {
			return false, false
		}
		sub = rel[len(f.base)+1:]
	}
	name := sub[strings.LastIndexByte(sub, '/')+1:]
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := &f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		var ok bool
		if r.anchored {
			ok = wildmatch(r.pattern, sub)
		} else {
			ok = matchSegment(r.pattern, name)
		}
		if ok {
			return true, !r.negate
		}
	}
	return false, false
}

// wildmatch matches a slash-separated glob against a path: '*', '?' and
// classes never cross '/', a "**" segment spans any number of directories
// (at least one when it ends the pattern).
func wildmatch(pattern, path string) bool {
	return matchSegs(strings.Split(pattern, "/"), strings.Split(path, "/"))
}

func matchSegs(ps, ts []string) bool {
	for len(ps) > 0 {
		if ps[0] == "**" {
			if len(ps) == 1 {
				return len(ts) > 0
			}
			for i := 0; i <= len(ts); i++ {
				if matchSegs(ps[1:], ts[i:]) {
					return true
				}
			}
			return false
		}
		if len(ts) == 0 || !matchSegment(ps[0], ts[0]) {
			return false
		}
		ps, ts = ps[1:], ts[1:]
	}
	return len(ts) == 0
}

// matchSegment matches one path component against a glob with '*', '?',
// bracket classes (with '!' or '^' negation and [:class:] names) and
// backslash escapes.
func matchSegment(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			if p == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if matchSegment(p, s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			p, s = p[1:], s[1:]
		case '[':
			if s == "" {
				return false
			}
			n, ok := matchClass(p, s[0])
			if !ok {
				return false
			}
			p, s = p[n:], s[1:]
		case '\\':
			if len(p) > 1 {
				p = p[1:]
			}
			fallthrough
		default:
			if s == "" || s[0] != p[0] {
				return false
			}
			p, s = p[1:], s[1:]
		}
	}
	return s == ""
}

// matchClass matches c against the bracket expression at the start of p and
// returns the expression's length. An unterminated '[' is a literal.
func matchClass(p string, c byte) (int, bool) {
	i := 1
	negate := i < len(p) && (p[i] == '!' || p[i] == '^')
	if negate {
		i++
	}
	matched := false
	for first := true; i < len(p) && (first || p[i] != ']'); first = false {
		lo := p[i]
		if lo == '[' && i+1 < len(p) && p[i+1] == ':' {
			if end := strings.Index(p[i+2:], ":]"); end >= 0 {
				matched = matched || inNamedClass(p[i+2:i+2+end], c)
				i += end + 4
				continue
			}
		}
		if lo == '\\' && i+1 < len(p) {
			i++
			lo = p[i]
		}
		hi := lo
		if i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']' {
			hi = p[i+2]
			if hi == '\\' && i+3 < len(p) {
				i++
				hi = p[i+2]
			}
			i += 2
		}
		matched = matched || (lo <= c && c <= hi)
		i++
	}
	if i >= len(p) {
		return 1, c == '['
	}
	return i + 1, matched != negate
}

func inNamedClass(name string, c byte) bool {
	switch name {
	case "alnum":
		return isAlpha(c) || isDigit(c)
	case "alpha":
		return isAlpha(c)
	case "digit":
		return isDigit(c)
	case "lower":
		return 'a' <= c && c <= 'z'
	case "upper":
		return 'A' <= c && c <= 'Z'
	case "space":
		return c == ' ' || ('\t' <= c && c <= '\r')
	case "blank":
		return c == ' ' || c == '\t'
	case "punct":
		return c > ' ' && c < 0x7f && !isAlpha(c) && !isDigit(c)
	case "xdigit":
		return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
	case "print":
		return c >= ' ' && c < 0x7f
	case "graph":
		return c > ' ' && c < 0x7f
	case "cntrl":
		return c < ' ' || c == 0x7f
	}
	return false
}

func isAlpha(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// MatchPath matches a gitignore(5) glob against a '/'-separated path: '*',
// '?' and classes never cross '/', a "**" segment spans directories. The
// Git tool's .gitattributes patterns use the same syntax.
func MatchPath(pattern, path string) bool { return wildmatch(pattern, path) }

// MatchName matches a gitignore(5) glob without '/' against one path
// component.
func MatchName(pattern, name string) bool { return matchSegment(pattern, name) }
