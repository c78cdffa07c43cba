package git

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/codewhale/codewhale/internal/gitrepo"
	"github.com/codewhale/codewhale/internal/tools"
)

// checkShowScope keeps show inside the boundary when the workspace (or the
// trusted root the call runs in) is a subdirectory of its repository
// (CONTRACT.md §6.3). A pathspec limits a commit's patch and stat, but not
// a blob or tree that the revision itself names: `HEAD:top.txt` or
// `HEAD^{tree}` print content from anywhere in the repository. So a
// `rev:path` must name a path inside the roots File may read, and any other
// revision must peel to commits; a tree or blob named by its hash is
// refused, since nothing tells where it lives.
func checkShowScope(ctx context.Context, tc *tools.Context, b backend, r *request) error {
	if r.action != "show" || !r.scoped {
		return nil
	}
	if p, ok := treePathOf(r.rev); ok {
		abs := r.treePathAbs(p)
		if _, _, err := tc.LexicalPath(abs); err != nil {
			return tools.PermissionDenied("Git show of '%s' refused: %s lies outside the workspace %s (and every trusted "+
				"root); the Git tool reads only what the File tool may read. Name a path inside the workspace "+
				"(relative paths in '<rev>:./<path>' start at the workspace).", r.rev, abs, tc.Workspace)
		}
		return nil
	}
	sides := []string{r.rev}
	if kind, err := b.objectKind(ctx, r, r.rev); err != nil {
		return err
	} else if kind == "" {
		sides = rangeSides(r.rev) // not one object: a range, or nothing git knows
	}
	for _, side := range sides {
		kind, err := b.objectKind(ctx, r, side)
		if err != nil {
			return err
		}
		if kind != "" && kind != "commit" {
			return tools.PermissionDenied("Git show of '%s' refused: it names a %s, which may lie outside the workspace "+
				"%s, a subdirectory of the repository; the Git tool reads only what the File tool may read. Name it "+
				"by path as '<rev>:<path>' (or '<rev>:./<path>') inside the workspace.", r.rev, kind, tc.Workspace)
		}
	}
	return nil
}

// treePathAbs is where the path of a `rev:path` lies: below the
// repository's top level, or below the working directory for ./ and ../
// (as git reads it).
func (r *request) treePathAbs(p string) string {
	top := gitrepo.Top(r.dir, "")
	if top == "" || p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		top = r.dir
	}
	return filepath.Join(top, filepath.FromSlash(p))
}

// treePathOf is the path of a `<rev>:<path>`, `:<path>` or `:<n>:<path>`
// revision; `:/<text>` searches commit messages and names no path.
func treePathOf(rev string) (string, bool) {
	if strings.HasPrefix(rev, ":/") {
		return "", false
	}
	base, p, ok := cutTreePath(rev)
	if !ok {
		return "", false
	}
	if base == "" && len(p) >= 2 && p[0] >= '0' && p[0] <= '3' && p[1] == ':' {
		p = p[2:]
	}
	return p, true
}

var rangeSuffix = regexp.MustCompile(`\^(@|!|-[0-9]*)$`)

// rangeSides splits A..B and A...B and strips ^A, A^@, A^! and A^-N, so
// each side can be checked on its own; an empty side is HEAD.
func rangeSides(rev string) []string {
	rev = rangeSuffix.ReplaceAllString(strings.TrimPrefix(rev, "^"), "")
	var sides []string
	for _, s := range strings.Split(strings.ReplaceAll(rev, "...", ".."), "..") {
		if s = strings.TrimPrefix(s, "^"); s != "" {
			sides = append(sides, s)
		}
	}
	if len(sides) == 0 {
		sides = []string{"HEAD"}
	}
	return sides
}
