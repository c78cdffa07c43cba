package file

import (
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/codewhale/codewhale/internal/gitrepo"
	"github.com/codewhale/codewhale/internal/ignore"
	"github.com/codewhale/codewhale/internal/tools"
)

// ignoreContext is where a walk of base starts in the ignore hierarchy: the
// matcher of the tree base lies in (ripgrep's sources, internal/ignore) and
// the rules in force inside base.
type ignoreContext struct {
	m   *ignore.Matcher
	dir *ignore.Dir
	rel string // base relative to the matcher's root, "" at the root
}

// path is the matcher-relative path of an entry at rel below the base.
func (c ignoreContext) path(rel string) string {
	if c.rel == "" {
		return rel
	}
	return c.rel + "/" + rel
}

// ignoreFor loads the ignore rules that govern base: those of the ignore
// root (the nearest enclosing git repository, or else the workspace) and of
// every directory from it down to base. Like ripgrep, a base the rules
// ignore is still searched when named explicitly; the rules go on applying
// to what is inside it.
func ignoreFor(base, workspace string) ignoreContext {
	root := ignoreRoot(base, workspace)
	rel, err := filepath.Rel(root, base)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ignoreContext{}
	}
	if rel == "." {
		rel = ""
	}
	rel = filepath.ToSlash(rel)
	m := ignore.New(root, ignore.Options{Dot: true})
	d, _ := m.DirFor(rel)
	return ignoreContext{m: m, dir: d, rel: rel}
}

// ignoreRoot is the nearest ancestor of base (inclusive) holding .git,
// looked for no higher than the workspace; else the workspace when base is
// inside it; else base.
func ignoreRoot(base, workspace string) string {
	if top := gitrepo.Top(base, workspace); top != "" {
		return top
	}
	if workspace != "" && (base == workspace || strings.HasPrefix(base, workspace+string(filepath.Separator))) {
		return workspace
	}
	return base
}

// globSet is a list of include/exclude globs. A pattern without '/' matches
// an entry's name at any depth; one with '/' matches its path relative to
// the workspace (relative to the search base outside the workspace), so a
// glob means the same whatever `path` the call searches (doublestar syntax:
// `**` spans directories). A pattern ending in `/**` matches what is inside
// a directory, never a file of that name. As in rg, `name/` matches only a
// directory and `/name` only at the top of the search.
type globSet []string

// parseGlobs reads an optional glob list and validates every pattern.
func parseGlobs(list []string, field string) (globSet, error) {
	if list == nil {
		return nil, nil
	}
	out := globSet{}
	for _, p := range list {
		p = strings.TrimPrefix(strings.TrimSpace(p), "./")
		if p == "" {
			continue
		}
		if !doublestar.ValidatePattern(p) {
			return nil, tools.InvalidInput("invalid glob pattern `%s` in `%s`", p, field)
		}
		out = append(out, p)
	}
	return out, nil
}

func (g globSet) match(rel, name string, isDir bool) bool {
	for _, p := range g {
		// rg's (gitignore's) forms: a trailing '/' matches directories
		// only; a leading '/' anchors the pattern at the base.
		p, dirOnly := strings.CutSuffix(p, "/")
		if dirOnly && !isDir {
			continue
		}
		p, anchored := strings.CutPrefix(p, "/")
		target := rel
		if !anchored && !strings.Contains(p, "/") {
			target = name
		}
		if ok, _ := doublestar.Match(p, target); !ok {
			continue
		}
		if dir, inside := strings.CutSuffix(p, "/**"); inside && !isDir {
			if self, _ := doublestar.Match(dir, target); self {
				continue // `build/**` is what is inside build/, not a file named build
			}
		}
		return true
	}
	return false
}
