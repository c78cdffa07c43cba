package file

import (
	"os"
	"path/filepath"
	"strings"
)

// credentialRefusal is the exact text of a refused read (tools.md §4.2).
const credentialRefusal = "File `read` cannot expose CodeWhale configuration or credential-store files; " +
	"use `codewhale config list` or `codewhale auth status` for safe inspection"

// guard is the set of configuration and credential paths read refuses.
type guard struct {
	files []string // exact paths (config files and their .bak copies)
	dirs  []string // everything below these (secrets stores)
}

// newGuard builds the guard from the built-in locations under the user's home
// plus extra (the active config, typically). Paths are compared after
// symlink resolution, as ResolvePath returns them.
func newGuard(extra []string) guard {
	var g guard
	if home, err := os.UserHomeDir(); err == nil {
		for _, root := range []string{".codewhale", ".deepseek"} {
			g.addFile(filepath.Join(home, root, "config.toml"))
			g.addDir(filepath.Join(home, root, "secrets"))
		}
	}
	for _, p := range extra {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			g.addDir(p)
		} else {
			g.addFile(p)
		}
	}
	return g
}

func (g *guard) addFile(p string) {
	for _, c := range canonicalForms(p) {
		g.files = append(g.files, c, c+".bak")
	}
}

func (g *guard) addDir(p string) { g.dirs = append(g.dirs, canonicalForms(p)...) }

// canonicalForms returns p cleaned and, when it differs, symlink-resolved.
func canonicalForms(p string) []string {
	p = filepath.Clean(p)
	out := []string{p}
	if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
		out = append(out, r)
	} else if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil && r != filepath.Dir(p) {
		out = append(out, filepath.Join(r, filepath.Base(p)))
	}
	return out
}

// refuses reports whether abs is a guarded path.
func (g guard) refuses(abs string) bool {
	for _, f := range g.files {
		if abs == f {
			return true
		}
	}
	for _, d := range g.dirs {
		if abs == d || strings.HasPrefix(abs, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
