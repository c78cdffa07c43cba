package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// gitNeverWritable are the parts of a .git directory that stay read-only
// even when the user made .git itself writable: each can make git run a
// program (config: core.fsmonitor, core.hooksPath, aliases, filters; hooks;
// a submodule's own config and hooks).
var gitNeverWritable = []string{"config", "config.worktree", "hooks", "modules"}

// Defaults describe a session for DefaultPolicy.
type Defaults struct {
	Mode      Mode
	Workspace string
	Home      string // $CODEWHALE_HOME
	Config    string // the active config file
	TempDirs  []string
	// Writable are the configured writable_roots.
	Writable []string
	// Caches are the writable build caches ([sandbox] build_caches).
	Caches  []string
	Network bool
}

// DefaultPolicy is the session policy: the workspace, the temp dirs,
// $CODEWHALE_HOME/tmp, the build caches and the configured roots are
// writable; the workspace's
// .git and .codewhale, codewhale's home and its config file are protected.
// Listing the workspace's .git itself among the writable roots is the user's
// explicit approval of git writes (commit, branch, stash): then only the
// parts of .git that can run programs stay protected.
func DefaultPolicy(d Defaults) Policy {
	p := Policy{Mode: d.Mode, Workspace: d.Workspace, Network: d.Network, Caches: d.Caches}
	if d.Home != "" {
		p.WritableRoots = append(p.WritableRoots, filepath.Join(d.Home, "tmp"))
	}
	p.WritableRoots = append(p.WritableRoots, d.TempDirs...)
	git := filepath.Join(d.Workspace, ".git")
	gitApproved := false
	for _, r := range d.Writable {
		r = expandHome(r)
		if !filepath.IsAbs(r) {
			r = filepath.Join(d.Workspace, r)
		}
		r = filepath.Clean(r)
		if r == git {
			gitApproved = true
		}
		p.WritableRoots = append(p.WritableRoots, r)
	}
	if gitApproved {
		for _, n := range gitNeverWritable {
			p.Protected = append(p.Protected, filepath.Join(git, n))
		}
	} else {
		p.Protected = append(p.Protected, git)
	}
	p.Protected = append(p.Protected, filepath.Join(d.Workspace, ".codewhale"))
	for _, x := range []string{d.Home, d.Config} {
		if x != "" {
			p.Protected = append(p.Protected, x)
		}
	}
	return p
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, p[1:])
		}
	}
	return p
}

// layout is a policy resolved against the filesystem at one start: every
// path canonical and existing.
type layout struct {
	// rw are the writable hierarchies.
	rw []string
	// ro are protected paths inside some rw hierarchy.
	ro []string
	// rwInRO are writable roots inside a protected path
	// ($CODEWHALE_HOME/tmp inside $CODEWHALE_HOME).
	rwInRO []string
}

// resolve maps the policy onto the filesystem as it is now. Read-only mode
// writes nowhere. A protected path that resolves outside every writable
// root is read-only anyway and needs nothing. A linked worktree's .git file
// points at its git dir, which is protected too when a writable root holds
// it.
func (p Policy) resolve() layout {
	var l layout
	if p.Mode != WorkspaceWrite {
		return l
	}
	roots := append(append([]string{p.Workspace}, p.WritableRoots...), p.Caches...)
	var linked [][2]string // roots besides the workspace reached through a link: as written, resolved
	for i, r := range roots {
		c, ok := canonical(r)
		if ok && i > 0 && c != filepath.Clean(r) {
			linked = append(linked, [2]string{r, c})
		}
		if ok && !contains(l.rw, c) {
			l.rw = append(l.rw, c)
		}
	}
	l.rw = dropPlanted(l.rw, linked)
	l.rw = dropNested(l.rw)
	protected := append([]string(nil), p.Protected...)
	protected = append(protected, gitDirsOf(filepath.Join(p.Workspace, ".git"))...)
	for _, x := range protected {
		c, ok := canonical(x)
		if !ok || !under(c, l.rw) || contains(l.ro, c) {
			continue
		}
		l.ro = append(l.ro, c)
	}
	for _, r := range roots {
		c, ok := canonical(r)
		if ok && under(c, l.ro) && !contains(l.rwInRO, c) {
			l.rwInRO = append(l.rwInRO, c)
		}
	}
	return l
}

// gitDirsOf follows a `.git` file (linked worktree, submodule) to the git
// dir and its common dir, whose config and hooks git also runs.
func gitDirsOf(dotgit string) []string {
	raw, err := os.ReadFile(dotgit)
	if err != nil {
		return nil // a directory, or none
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(raw)), "gitdir:")
	if !ok {
		return nil
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(dotgit), dir)
	}
	out := []string{dir}
	if common, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(dir, c)
		}
		out = append(out, c)
	}
	return out
}

// canonical resolves symlinks; false when the path does not exist.
func canonical(p string) (string, bool) {
	if p == "" {
		return "", false
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	c, err := filepath.EvalSymlinks(abs)
	return c, err == nil
}

// within reports whether p is root or beneath it.
func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

func under(p string, roots []string) bool {
	for _, r := range roots {
		if within(p, r) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// dropNested removes roots that lie inside another root.
func dropNested(roots []string) []string {
	var out []string
	for i, r := range roots {
		nested := false
		for j, o := range roots {
			if i != j && r != o && within(r, o) {
				nested = true
				break
			}
		}
		if !nested {
			out = append(out, r)
		}
	}
	return out
}

// hasBeneath reports whether a protected path lies strictly beneath root.
func hasBeneath(root string, protected []string) bool {
	for _, p := range protected {
		if p != root && within(p, root) {
			return true
		}
	}
	return false
}
