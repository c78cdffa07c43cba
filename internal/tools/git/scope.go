package git

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/gitrepo"
	"github.com/codewhale/codewhale/internal/tools"
)

// scopeKind is what a `path` names on disk.
type scopeKind int

const (
	scopeNone    scopeKind = iota // no path: the whole workspace
	scopeDir                      // a real directory
	scopeFile                     // a file or a symlink (to anything), named by itself
	scopeMissing                  // nothing on disk; the index or history may still know it
)

// resolveScope sets dir and pathspec from `path` (CONTRACT.md §6.3). A Git path
// is a pathspec: it is joined to the workspace and cleaned lexically, and
// no link is followed to decide what it names — a tracked symlink is the
// link itself (`git status -- link.txt`), never its target. git runs in the
// deepest real directory on the way (the path itself when it is one, with
// pathspec "."), and the rest is the pathspec. A path that does not exist
// on disk is allowed: the history of a deleted file or folder is a
// legitimate question (see knownPath for the answer when nothing knows it).
func (r *request) resolveScope(tc *tools.Context) error {
	r.dir = tc.Workspace
	if r.rawPath == "" {
		if tc.Workspace == "" {
			return tools.ExecutionFailed("Git has no workspace to run in")
		}
		if r.scoped = !gitrepo.IsTop(r.dir); r.scoped {
			// The workspace is a subdirectory of its repository: the read
			// is limited to it, as `git <action> -- .` run there
			// (CONTRACT.md §6.3). At the top level no pathspec is passed,
			// since `-- .` would prune empty commits from log.
			r.pathspec, r.kind = ".", scopeDir
		}
		return nil
	}
	abs, base, err := tc.LexicalPath(r.rawPath)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil {
		return tools.PathEscape(abs)
	}
	// git runs at the root the path lies in (the workspace, or a trusted
	// root) with the whole rest as the pathspec, never inside a nested
	// repository on the way: `path` into a submodule asks the outer
	// repository about it, as `git status -- sub` does.
	r.dir, r.scoped = base, !gitrepo.IsTop(base)
	dir, parts := base, []string{}
	if rel != "." {
		parts = strings.Split(rel, string(filepath.Separator))
	}
	for i, part := range parts {
		next := filepath.Join(dir, part)
		fi, err := os.Lstat(next)
		switch {
		case err == nil && fi.IsDir():
			if r.inner == "" && gitrepo.IsTop(next) {
				r.inner = strings.Join(parts[:i+1], "/")
			}
			dir = next
			continue
		case err == nil && fi.Mode()&fs.ModeSymlink != 0 && i < len(parts)-1:
			return throughLink(r.rawPath, next)
		case err == nil && i < len(parts)-1:
			return tools.InvalidInput("Path %s goes through %s, which is a file, not a directory; nothing was run.", r.rawPath, next)
		case err == nil:
			r.kind = scopeFile
		case errors.Is(err, fs.ErrNotExist):
			r.kind = scopeMissing
		default:
			return tools.InvalidInput("Path does not exist or is not accessible: %s (%v)", r.rawPath, unwrapPathErr(err))
		}
		r.pathspec = strings.Join(parts, "/")
		return nil
	}
	r.pathspec, r.kind = ".", scopeDir
	if len(parts) > 0 {
		r.pathspec = strings.Join(parts, "/")
	}
	return nil
}

// throughLink refuses a path that continues past a symbolic link, as git
// does ("beyond a symbolic link"): the repository stores the link, not what
// lies behind it.
func throughLink(raw, link string) error {
	hint := ""
	if target, err := os.Readlink(link); err == nil {
		hint = " (it points at " + target + ")"
	}
	return tools.InvalidInput("Path %s goes through the symbolic link %s%s; git reads paths as the repository stores "+
		"them, so nothing was run. Pass the link itself, or the same path through the link's target.", raw, link, hint)
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// emptyRead reports whether an action's output shows nothing about the
// path: no lines at all, or for status only the branch line.
func emptyRead(action, text string) bool {
	if action == "status" && strings.HasPrefix(text, "## ") {
		_, text, _ = strings.Cut(text, "\n")
	}
	return strings.TrimSpace(text) == ""
}

// unknownPath is the refusal for a path neither the disk, the index nor the
// history knows.
func unknownPath(raw string) error {
	return tools.InvalidInput("Path does not exist or is not accessible: %s (not in the workspace, the index, or any "+
		"commit reachable from a branch or tag); nothing to show. Check the spelling, or run Git log without `path` "+
		"to find where it went.", raw)
}
