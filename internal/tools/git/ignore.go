package git

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// ignoreRule is one line of an ignore file.
type ignoreRule struct {
	base     string // directory holding the ignore file, repository-relative ("" = root or global)
	pattern  string
	negate   bool
	dirOnly  bool
	anchored bool // the pattern contained a slash other than a trailing one
}

// ignorer answers "is this untracked path excluded?" with git's precedence:
// rules are kept from lowest to highest priority (core.excludesFile,
// info/exclude, then .gitignore files from the root down), and the last
// matching rule decides.
type ignorer struct {
	rules []ignoreRule
}

// newIgnorer loads the repository-wide exclude files.
func newIgnorer(rp *repo) *ignorer {
	ig := &ignorer{}
	if path := excludesFile(rp); path != "" {
		ig.rules = append(ig.rules, readIgnoreFile(path, "")...)
	}
	ig.rules = append(ig.rules, readIgnoreFile(filepath.Join(rp.commonDir, "info", "exclude"), "")...)
	return ig
}

// excludesFile is core.excludesFile from the repository or user config, or
// git's default $XDG_CONFIG_HOME/git/ignore.
func excludesFile(rp *repo) string {
	if v, ok := rp.configValue("core", "excludesfile"); ok && v != "" {
		return expandHome(v)
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", "ignore")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config", "git", "ignore")
	}
	return ""
}

func expandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}

// readIgnoreFile parses an ignore file whose rules apply below base.
func readIgnoreFile(path, base string) []ignoreRule {
	data := readConfigNamedFile(path)
	if data == nil {
		return nil
	}
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if r, ok := parseIgnoreLine(sc.Text(), base); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

func parseIgnoreLine(line, base string) (ignoreRule, bool) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	line = trimUnescapedSpaces(line)
	r := ignoreRule{base: base}
	if line[0] == '!' {
		r.negate, line = true, line[1:]
	} else if line[0] == '\\' && len(line) > 1 && (line[1] == '!' || line[1] == '#') {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly, line = true, strings.TrimSuffix(line, "/")
	}
	if strings.Contains(line, "/") {
		r.anchored, line = true, strings.TrimPrefix(line, "/")
	}
	if line == "" {
		return ignoreRule{}, false
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

// push adds the rules of dir's .gitignore; pop restores the previous set.
func (ig *ignorer) push(root, dir string) int {
	mark := len(ig.rules)
	ig.rules = append(ig.rules, readIgnoreFile(filepath.Join(root, filepath.FromSlash(dir), ".gitignore"), dir)...)
	return mark
}

func (ig *ignorer) pop(mark int) { ig.rules = ig.rules[:mark] }

// excluded reports whether path (repository-relative) is ignored by the
// rules in force. Its parent directories must already have been checked:
// like git, a file below an excluded directory is never looked at.
func (ig *ignorer) excluded(path string, isDir bool) bool {
	for i := len(ig.rules) - 1; i >= 0; i-- {
		r := &ig.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		rel := path
		if r.base != "" {
			if !strings.HasPrefix(path, r.base+"/") {
				continue
			}
			rel = path[len(r.base)+1:]
		}
		var ok bool
		if r.anchored {
			ok = wildmatch(r.pattern, rel)
		} else {
			ok = matchSegment(r.pattern, rel[strings.LastIndexByte(rel, '/')+1:])
		}
		if ok {
			return !r.negate
		}
	}
	return false
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
