package git

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/codewhale/codewhale/internal/ignore"
)

// attrState is one attribute's value for a path: set, unset ("-a"),
// unspecified ("!a" or never named) or a string value ("a=v").
type attrState struct {
	set, unset bool
	value      string
}

func (s attrState) specified() bool { return s.set || s.unset || s.value != "" }

type attrAssign struct {
	name  string
	state attrState
}

// attrRule is one pattern line of an attributes file.
type attrRule struct {
	base     string // directory of the .gitattributes, repository-relative; "" for root, info and global
	pattern  string
	anchored bool // the pattern has a slash: it matches the path below base, not the basename
	assigns  []attrAssign
}

// attributes answers git's check-attr for the checkin direction (what
// status compares), with git's precedence from lowest to highest: the
// global core.attributesFile, .gitattributes from the root down to the
// path's directory (read from the worktree, else from the index), then
// $GIT_DIR/info/attributes. The last assignment of an attribute wins; a
// set macro ("binary", or one a root-level file defines) expands first.
type attributes struct {
	rp     *repo
	index  *gitIndex
	low    []attrRule            // global file
	high   []attrRule            // info/attributes
	dirs   map[string][]attrRule // per directory, read on first use
	macros map[string][]attrAssign
}

func newAttributes(rp *repo, idx *gitIndex) *attributes {
	a := &attributes{rp: rp, index: idx, dirs: map[string][]attrRule{},
		macros: map[string][]attrAssign{"binary": {{"diff", attrState{unset: true}}, {"merge", attrState{unset: true}},
			{"text", attrState{unset: true}}}}}
	if p := attributesFile(rp); p != "" {
		a.low = a.parse(ignore.ReadRegular(p), "", true)
	}
	a.high = a.parse(ignore.ReadRegular(filepath.Join(rp.commonDir, "info", "attributes")), "", true)
	return a
}

// attributesFile is core.attributesFile, or git's default
// $XDG_CONFIG_HOME/git/attributes.
func attributesFile(rp *repo) string {
	if v, ok := rp.configValue("core", "attributesfile"); ok && v != "" {
		return expandHome(v)
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", "attributes")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config", "git", "attributes")
	}
	return ""
}

// lookup returns the states of the named attributes for a repository
// path.
func (a *attributes) lookup(p string, names ...string) map[string]attrState {
	out := map[string]attrState{}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	apply := func(rules []attrRule) {
		for _, r := range rules {
			if r.matches(p) {
				for _, as := range r.assigns {
					a.assign(out, want, as)
				}
			}
		}
	}
	apply(a.low)
	dir := ""
	for {
		apply(a.dirRules(dir))
		rest := strings.TrimPrefix(p, dir)
		rest = strings.TrimPrefix(rest, "/")
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			break
		}
		dir = joinPath(dir, rest[:i])
	}
	apply(a.high)
	return out
}

func (a *attributes) assign(out map[string]attrState, want map[string]bool, as attrAssign) {
	if m, ok := a.macros[as.name]; ok && as.state.set {
		for _, sub := range m {
			a.assign(out, want, sub)
		}
	}
	if want[as.name] {
		out[as.name] = as.state
	}
}

// dirRules reads dir's .gitattributes (worktree first, then the index).
func (a *attributes) dirRules(dir string) []attrRule {
	if rules, ok := a.dirs[dir]; ok {
		return rules
	}
	name := joinPath(dir, ".gitattributes")
	data, err := os.ReadFile(filepath.Join(a.rp.root, filepath.FromSlash(name)))
	if err != nil && a.index != nil {
		for _, e := range a.index.entries {
			if e.name == name && e.stage == 0 {
				data = a.rp.blobBytes(e.hash)
			}
		}
	}
	rules := a.parse(data, dir, dir == "")
	a.dirs[dir] = rules
	return rules
}

// parse reads an attributes file's lines; macros may be defined only where
// git allows them (the root file, info/attributes, the global file).
func (a *attributes) parse(data []byte, base string, macros bool) []attrRule {
	var rules []attrRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimSuffix(sc.Text(), "\r"))
		if line == "" || line[0] == '#' {
			continue
		}
		pat, rest := cutPattern(line)
		assigns := parseAssigns(rest)
		if name, ok := strings.CutPrefix(pat, "[attr]"); ok {
			if macros {
				a.macros[name] = assigns
			}
			continue
		}
		if pat == "" || pat[0] == '!' || strings.HasSuffix(pat, "/") {
			continue // negative and directory patterns never apply to a file
		}
		r := attrRule{base: base, assigns: assigns}
		if strings.Contains(pat, "/") {
			r.anchored, pat = true, strings.TrimPrefix(pat, "/")
		}
		r.pattern = pat
		rules = append(rules, r)
	}
	return rules
}

// cutPattern splits a line into its (possibly C-quoted) pattern and the
// attribute list.
func cutPattern(line string) (string, string) {
	if strings.HasPrefix(line, `"`) {
		for i := 1; i < len(line); i++ {
			if line[i] == '\\' {
				i++
				continue
			}
			if line[i] == '"' {
				if u, err := strconv.Unquote(line[:i+1]); err == nil {
					return u, line[i+1:]
				}
				break
			}
		}
	}
	i := strings.IndexAny(line, " \t")
	if i < 0 {
		return line, ""
	}
	return line[:i], line[i+1:]
}

func parseAssigns(s string) []attrAssign {
	var out []attrAssign
	for _, f := range strings.Fields(s) {
		switch {
		case strings.HasPrefix(f, "-"):
			out = append(out, attrAssign{f[1:], attrState{unset: true}})
		case strings.HasPrefix(f, "!"):
			out = append(out, attrAssign{f[1:], attrState{}})
		case strings.Contains(f, "="):
			k, v, _ := strings.Cut(f, "=")
			out = append(out, attrAssign{k, attrState{value: v}})
		default:
			out = append(out, attrAssign{f, attrState{set: true}})
		}
	}
	return out
}

// matches applies git's attribute pattern rules: a pattern without a slash
// matches the basename anywhere below its file's directory, one with a
// slash matches the path relative to that directory.
func (r attrRule) matches(p string) bool {
	rel := p
	if r.base != "" {
		if !strings.HasPrefix(p, r.base+"/") {
			return false
		}
		rel = p[len(r.base)+1:]
	}
	if r.anchored {
		return wildmatch(r.pattern, rel)
	}
	return matchSegment(r.pattern, path.Base(rel))
}
