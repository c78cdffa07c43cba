package file

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/tools"
)

// credentialRefusal is the exact text of a refused read of CodeWhale's own
// configuration or credentials (CONTRACT.md §6.2).
const credentialRefusal = "File `read` cannot expose CodeWhale configuration or credential-store files; " +
	"use `codewhale config list` or `codewhale auth status` for safe inspection"

// guard is the set of extra paths (Options.GuardPaths) File treats as
// CodeWhale configuration, beside what the secrets policy knows.
type guard struct {
	files []string // exact paths (config files and their .bak copies)
	dirs  []string // everything below these (secrets stores)
}

// newGuard builds the guard from extra. Paths are compared after symlink
// resolution, as ResolvePath returns them.
func newGuard(extra []string) guard {
	var g guard
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

// policy is the secrets policy File consults: the one given in Options, or
// the process-wide one the wiring installed.
func (t *Tool) policy() *secrets.Policy {
	if t.secrets != nil {
		return t.secrets
	}
	return secrets.Default()
}

// secretReason is File's credential guard (issue 11 §4): why abs is a file
// or directory no File action may show or write, if it is one.
func (t *Tool) secretReason(abs string) (string, bool) {
	if why, ok := t.policy().IsSecretPath(abs); ok {
		return why, true
	}
	if t.guard().refuses(abs) {
		return secrets.ReasonConfig, true
	}
	return "", false
}

// Secret is the one predicate the walkers ask, per directory before
// entering it and per file before reading its content: is abs a secret?
// list and search_name still show a secret file's name (names are not the
// secret); nothing reads its bytes, and no walk enters a secret directory.
func (t *Tool) Secret(abs string) bool {
	_, ok := t.secretReason(abs)
	return ok
}

// refuseSecret refuses action on abs when abs is a secret, with the
// contract's exact text for CodeWhale's own files and a text naming what
// the file is otherwise.
func (t *Tool) refuseSecret(action, abs string) error {
	why, ok := t.secretReason(abs)
	if !ok {
		return nil
	}
	if secrets.IsCodeWhaleReason(why) {
		return tools.PermissionDenied("%s", strings.Replace(credentialRefusal, "`read`", "`"+action+"`", 1))
	}
	verb := "expose"
	if !isReadAction(action) {
		verb = "write"
	}
	return tools.PermissionDenied("File `%s` cannot %s credential files: %s is %s. Nothing was read or written; "+
		"if something in it is needed, ask the user for that part.", action, verb, abs, why)
}
