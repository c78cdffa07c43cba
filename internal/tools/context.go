package tools

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/policy"
)

// Context is the per-call environment a tool runs in. Long-lived services a
// tool needs (job manager, read snapshots, task store) are given to the tool
// when it is constructed, not carried here.
type Context struct {
	Workspace    string // canonical workspace root
	Mode         policy.Mode
	Trust        bool     // trust mode: the workspace boundary is off
	TrustedRoots []string // extra roots file tools may reach (canonical)
	TurnID       string
	CallID       string
	// Budget is how many characters the result's Content may take (the
	// engine's bound for the route, engine.md §2.9); 0 means DefaultBudget.
	// A tool sizes its own result to it, stays valid JSON and says what it
	// left out and how to get the rest: the engine's last-resort cut of a
	// longer result is never meant to be reached by a built-in tool.
	Budget int
}

// DefaultBudget is the result budget of a call whose Context sets none: the
// engine's bound for routes with a window of 500,000 tokens or more.
const DefaultBudget = 48_000

// ResultBudget is c.Budget, or DefaultBudget when c is nil or sets none.
func (c *Context) ResultBudget() int {
	if c == nil || c.Budget <= 0 {
		return DefaultBudget
	}
	return c.Budget
}

// ResolvePath maps raw onto an absolute path inside the workspace or a
// trusted root (tools.md §3). Relative paths join the workspace; symlinks are
// resolved, so a link that leaves the root is an escape; for a path that does
// not exist yet the deepest existing ancestor is resolved and the rest
// re-appended.
func (c *Context) ResolvePath(raw string) (string, error) {
	p := raw
	if p == "" {
		p = "."
	}
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.Workspace, p)
	}
	p = filepath.Clean(p)
	canon := canonicalize(p)
	if c.Trust || within(canon, c.Workspace) {
		return canon, nil
	}
	for _, root := range c.TrustedRoots {
		if within(canon, root) {
			return canon, nil
		}
	}
	return "", PathEscape(canon)
}

// Rel returns abs relative to the workspace with '/' separators, or abs
// itself when it lies outside.
func (c *Context) Rel(abs string) string {
	rel, err := filepath.Rel(c.Workspace, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return abs
	}
	return filepath.ToSlash(rel)
}

// canonicalize resolves symlinks of the deepest existing ancestor of p.
func canonicalize(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, rest := filepath.Dir(p), filepath.Base(p)
	if dir == p {
		return p
	}
	return filepath.Join(canonicalize(dir), rest)
}

// Canonical returns the symlink-resolved absolute form of dir.
func Canonical(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return canonicalize(abs)
}

func within(p, root string) bool {
	if root == "" {
		return false
	}
	if p == root {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}
