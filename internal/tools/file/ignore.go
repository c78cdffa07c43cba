package file

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/codewhale/codewhale/internal/gitrepo"
	"github.com/codewhale/codewhale/internal/tools"
)

// ignoreNode holds one directory's .gitignore patterns and points at the
// enclosing directory's node. Deeper files take precedence, and within a file
// the last matching line wins, as in git.
type ignoreNode struct {
	parent   *ignoreNode
	patterns []gitignore.Pattern
}

// ignored reports whether path (components relative to the ignore root) is
// excluded by the chain ending at n.
func (n *ignoreNode) ignored(path []string, isDir bool) bool {
	for node := n; node != nil; node = node.parent {
		for i := len(node.patterns) - 1; i >= 0; i-- {
			switch node.patterns[i].Match(path, isDir) {
			case gitignore.Exclude:
				return true
			case gitignore.Include:
				return false
			}
		}
	}
	return false
}

// child returns the node for directory dir (components domain relative to
// the ignore root): n extended with dir's .gitignore, or n itself when dir
// has none.
func (n *ignoreNode) child(dir string, domain []string) *ignoreNode {
	ps := readPatterns(filepath.Join(dir, ".gitignore"), domain)
	if len(ps) == 0 {
		return n
	}
	return &ignoreNode{parent: n, patterns: ps}
}

func readPatterns(file string, domain []string) []gitignore.Pattern {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// ignoreContext is where a walk of base starts in the ignore hierarchy.
type ignoreContext struct {
	node *ignoreNode // rules in force at base (from base's ancestors)
	comp []string    // base relative to the ignore root
}

// ignoreFor loads the .gitignore rules that govern base: those of every
// directory from the ignore root (the nearest enclosing git repository, or
// else the workspace) down to base's parent, plus .git/info/exclude. When
// base itself is ignored the user named it on purpose, so the rules above it
// are dropped and only the ones inside it apply.
func ignoreFor(base, workspace string) ignoreContext {
	root := ignoreRoot(base, workspace)
	rel, err := filepath.Rel(root, base)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ignoreContext{}
	}
	var comp []string
	if rel != "." {
		comp = strings.Split(filepath.ToSlash(rel), "/")
	}
	var node *ignoreNode
	if _, common, err := gitrepo.Dirs(root); err == nil {
		// info/exclude lives in the common dir: a linked worktree's .git is a file.
		if ps := readPatterns(filepath.Join(common, "info", "exclude"), nil); len(ps) > 0 {
			node = &ignoreNode{patterns: ps}
		}
	}
	dir := root
	for i := 0; i < len(comp); i++ {
		node = node.child(dir, comp[:i])
		if node.ignored(comp[:i+1], true) {
			return ignoreContext{comp: comp}
		}
		dir = filepath.Join(dir, comp[i])
	}
	return ignoreContext{node: node, comp: comp}
}

// ignoreRoot is the nearest ancestor of base (inclusive) holding .git,
// looked for no higher than the workspace; else the workspace when base is
// inside it; else base.
func ignoreRoot(base, workspace string) string {
	inside := workspace != "" && (base == workspace || strings.HasPrefix(base, workspace+string(filepath.Separator)))
	for d := base; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if (inside && d == workspace) || filepath.Dir(d) == d {
			break
		}
	}
	if inside {
		return workspace
	}
	return base
}

// globSet is a list of include/exclude globs. A pattern without '/' matches
// an entry's name at any depth; one with '/' matches the path relative to
// the search base (doublestar syntax, so `**` spans directories).
type globSet []string

// parseGlobs reads an optional glob list and validates every pattern.
func parseGlobs(a tools.Args, field string) (globSet, bool, error) {
	list, ok, err := a.StringList(field)
	if err != nil || !ok {
		return nil, ok, err
	}
	var out globSet
	for _, p := range list {
		p = strings.TrimPrefix(strings.TrimSpace(p), "./")
		if p == "" {
			continue
		}
		if !doublestar.ValidatePattern(p) {
			return nil, true, tools.InvalidInput("invalid glob pattern `%s` in `%s`", p, field)
		}
		out = append(out, p)
	}
	return out, true, nil
}

func (g globSet) match(rel, name string) bool {
	for _, p := range g {
		target := rel
		if !strings.Contains(p, "/") {
			target = name
		}
		if ok, _ := doublestar.Match(p, target); ok {
			return true
		}
	}
	return false
}
