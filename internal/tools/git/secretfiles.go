package git

import (
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/gitrepo"
	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/tools"
)

// A secret file committed to the repository (.env, a private key) is as
// secret in its history as on disk: File refuses to read it and a shell
// `git show HEAD:.env` needs a person's approval, so this tool, which runs
// without asking, never prints such a file's content. A blob or a blame of
// one is refused; in a diff or patch its section keeps the header and says
// the content is left out.

// refuseSecret refuses a show of a secret blob (`REV:path`) or a blame of
// a secret file before anything runs.
func refuseSecret(r *request) error {
	var p, abs string
	switch {
	case r.action == "blame":
		p = r.pathspec
		abs = filepath.Join(r.dir, filepath.FromSlash(p))
	case r.action == "show":
		if tp, ok := treePathOf(r.rev); ok {
			p, abs = tp, r.treePathAbs(tp)
		}
	}
	if p == "" || p == "." {
		return nil
	}
	if reason, ok := secrets.IsSecretPath(abs); ok {
		return tools.PermissionDenied("Git %s cannot expose credential files: %s is %s. Nothing was shown; if something in it "+
			"is needed, ask the user for that part.", r.action, p, reason)
	}
	return nil
}

// secretFile reports whether p, a path as a diff header names it (from the
// repository's top level), is a secret file.
func secretFile(r *request, p string) (string, bool) {
	if p == "" || p == "." {
		return "", false
	}
	top := gitrepo.Top(r.dir, "")
	if top == "" {
		top = r.dir
	}
	return secrets.IsSecretPath(filepath.Join(top, filepath.FromSlash(p)))
}

// hideSecretFiles replaces the body of every diff section whose old or new
// path is a secret file.
func hideSecretFiles(r *request, text string) string {
	if r.action != "diff" && r.action != "show" || !strings.Contains(text, "diff --") {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	hiding := false
	for _, ln := range lines {
		if strings.HasPrefix(ln, "diff --") {
			hiding = false
			for _, p := range sectionPaths(strings.TrimRight(ln, "\n")) {
				if reason, ok := secretFile(r, p); ok {
					b.WriteString(ln)
					b.WriteString("[the content of " + p + " is not shown: it is " + reason + "]\n")
					hiding = true
					break
				}
			}
			if hiding {
				continue
			}
		}
		if !hiding {
			b.WriteString(ln)
		}
	}
	return b.String()
}

// sectionPaths are the paths a diff section header names: both sides of
// `diff --git a/X b/Y` (quoted or not) or the one of `diff --cc X`.
func sectionPaths(header string) []string {
	for _, p := range []string{"diff --cc ", "diff --combined "} {
		if rest, ok := strings.CutPrefix(header, p); ok {
			return []string{unquotePath(rest)}
		}
	}
	rest, ok := strings.CutPrefix(header, "diff --git ")
	if !ok {
		return nil
	}
	for _, sep := range []string{" b/", ` "b/`} {
		if i := strings.LastIndex(rest, sep); i >= 0 {
			return []string{strings.TrimPrefix(unquotePath(rest[:i]), "a/"), unquotePath(rest[i+len(sep):])}
		}
	}
	return nil
}

// unquotePath strips git's C-style quotes; escapes stay (a secret's name
// rules look at plain names, and a quoted name only needs its basename).
func unquotePath(s string) string {
	return strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`)
}
