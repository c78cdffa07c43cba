package tools

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/sandbox"
)

// Context is the per-call environment a tool runs in. Long-lived services a
// tool needs (job manager, read snapshots, task store) are given to the tool
// when it is constructed, not carried here.
type Context struct {
	Workspace string // canonical workspace root
	Mode      posture.Mode
	// TrustedRoots are the canonical roots beyond the workspace that path
	// arguments may reach on this call: the engine puts here exactly the
	// trusted roots in force (CONTRACT.md §5). No flag switches the
	// boundary off: trust mode widens it only by the roots the user listed.
	TrustedRoots []string
	// Approval is the approval the call was granted under: the engine sets
	// it from the tool's ApprovalFor when the call passed that gate. A tool
	// that finds at execution that the call needs more (the tree changed
	// since the decision: a path now leads into .git) refuses instead of
	// acting without the approval it needs.
	Approval Approval
	TurnID   string
	CallID   string
	// Budget is how many characters the result's Content may take (the
	// engine's bound for the route, CONTRACT.md §9.9); 0 means DefaultBudget.
	// A tool sizes its own result to it, stays valid JSON and says what it
	// left out and how to get the rest: the engine's last-resort cut of a
	// longer result is never meant to be reached by a built-in tool.
	Budget int
	// Sandbox confines the commands this call runs (read-only in Plan,
	// danger-full-access for one run the user approved outside it); nil
	// leaves them to the job manager's sandbox.
	Sandbox *sandbox.Sandbox
	// Progress, when set, takes the live tail of a running call's output
	// (its last lines, plain text) so a host can show it before the call
	// ends. A tool calls it at most every ProgressInterval; the engine
	// bounds, redacts and forwards it (docs/CONTRACT.md, "Tool progress").
	// Nil: no one is watching.
	Progress func(tail string)
	// NoVision, when set, is why the turn's model cannot take images
	// (provider.NoVisionError): a tool that would return images refuses
	// with it instead (CONTRACT.md §6.13).
	NoVision error
}

// Bounds of live progress: how often a tool reports, and how much of the
// tail the engine forwards.
const (
	ProgressInterval = 150 * time.Millisecond
	ProgressLines    = 12
	ProgressChars    = 2000
)

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

// Roots are the directories path arguments may reach: the workspace first,
// then the trusted roots in force.
func (c *Context) Roots() []string {
	return append([]string{c.Workspace}, c.TrustedRoots...)
}

// ResolvePath maps raw onto an absolute path inside the workspace or a
// trusted root (CONTRACT.md §5). Relative paths join the workspace; symlinks are
// resolved, so a link that leaves the root is an escape; for a path that does
// not exist yet the deepest existing ancestor is resolved and the rest
// re-appended. The result is a check, not a capability: a tool that then
// opens the path by name races with whoever can change the tree. The File
// tool therefore opens what ResolvePath returns through confine, beneath an
// open root and refusing any link, so the check and the use agree.
func (c *Context) ResolvePath(raw string) (string, error) {
	canon := CanonicalPath(raw, c.Workspace)
	if within(canon, c.Workspace) {
		return canon, nil
	}
	for _, root := range c.TrustedRoots {
		if within(canon, root) {
			return canon, nil
		}
	}
	return "", PathEscape(canon)
}

// CanonicalPath is the absolute, symlink-resolved form of raw as
// ResolvePath computes it, without the boundary check: relative paths join
// workspace, "~/" is the user's home, and for a path that does not exist
// yet the deepest existing ancestor is resolved and the rest re-appended.
func CanonicalPath(raw, workspace string) string {
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
		p = filepath.Join(workspace, p)
	}
	return canonicalize(filepath.Clean(p))
}

// LexicalPath is raw joined to the workspace (relative paths; "~/" is the
// user's home) and cleaned without following any link, checked against the
// same roots as ResolvePath; it returns the path and the root it lies in.
// Git resolves `path` this way: there a path is a pathspec, and a tracked
// symlink names itself, not its target.
func (c *Context) LexicalPath(raw string) (string, string, error) {
	p := raw
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.Workspace, p)
	}
	p = filepath.Clean(p)
	for _, root := range append([]string{c.Workspace}, c.TrustedRoots...) {
		if within(p, root) {
			return p, root, nil
		}
	}
	return "", "", PathEscape(p)
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
// An ancestor that is a link leading nowhere yet (dangling) is resolved by
// its text, as the kernel would follow it to create the file: the result
// names where a create through it would land, so a dangling link out of
// the workspace is an escape rather than a path inside (CONTRACT.md §5).
func canonicalize(p string) string { return canonicalizeLinks(p, 0) }

// maxLinks bounds the dangling links followed in one path, as the
// kernel's ELOOP does; past it the link is left as it is (a loop), and the
// confined open refuses it.
const maxLinks = 40

func canonicalizeLinks(p string, links int) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, rest := filepath.Dir(p), filepath.Base(p)
	if dir == p {
		return p
	}
	parent := canonicalizeLinks(dir, links)
	q := filepath.Join(parent, rest)
	if links >= maxLinks {
		return q
	}
	target, err := os.Readlink(q)
	if err != nil {
		return q // no link: a name that does not exist yet
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(parent, target)
	}
	return canonicalizeLinks(filepath.Clean(target), links+1)
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
