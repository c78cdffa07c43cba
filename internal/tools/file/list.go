package file

import (
	"context"
	"path/filepath"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

const (
	maxListEntries = 500
	maxListDepth   = 5
)

type listReq struct {
	path  string
	depth int
}

func parseList(a tools.Args) (listReq, error) {
	var r listReq
	var err error
	if r.path, err = optPath(a); err != nil {
		return r, err
	}
	var has bool
	if r.depth, has, err = uintOr(a, "depth", 1); err != nil {
		return r, err
	}
	if has && r.depth == 0 {
		return r, tools.InvalidInput("depth must be between 1 and %d (1 lists the directory's own entries)", maxListDepth)
	}
	r.depth = min(r.depth, maxListDepth)
	return r, nil
}

// listEntry is one listed entry; Name is relative to the listed directory
// ('/'-separated below depth 1).
type listEntry struct {
	Name  string `json:"name"`
	IsDir bool   `json:"is_dir"`
}

type listTruncated struct {
	Entries []listEntry `json:"entries"`
	Listed  int         `json:"listed_entries"`
	Total   int         `json:"total_entries"`
	Trunc   bool        `json:"truncated"`
}

// list shows a directory's entries in name order, depth-first down to
// r.depth levels, honouring .gitignore and never entering .git or following
// symlinks.
func (t *Tool) list(ctx context.Context, tc *tools.Context, r listReq) (tools.Result, error) {
	abs, err := tc.ResolvePath(r.path)
	if err != nil {
		return tools.Result{}, err
	}
	if err := t.refuseSecret("list", abs); err != nil {
		return tools.Result{}, err
	}
	b := openBoundary(tc)
	defer b.Close()
	fi, err := b.Stat(abs)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("Failed to list %s: %v", abs, unwrapPath(err))
	}
	if !fi.IsDir() {
		return tools.Result{}, tools.ExecutionFailed("Failed to list %s: not a directory. Use File with action=\"read\" to read a file.", abs)
	}
	ctx, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	l := &lister{ctx: ctx, max: r.depth, fs: b, secret: t.Secret}
	ign := ignoreFor(abs, tc.Workspace)
	if err := l.dir(abs, "", ign.comp, ign.node, 1); err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, walkError(ctx.Err(), "list")
		}
		return tools.Result{}, tools.ExecutionFailed("Failed to list %s: %v", abs, unwrapPath(err))
	}
	if l.total <= maxListEntries {
		if l.entries == nil {
			l.entries = []listEntry{}
		}
		return tools.OK(jsonText(l.entries)), nil
	}
	return tools.OK(jsonText(listTruncated{Entries: l.entries, Listed: len(l.entries), Total: l.total, Trunc: true})), nil
}

type lister struct {
	ctx     context.Context
	fs      *confine.Set
	secret  func(abs string) bool // never entered (its entries' names stay private too)
	max     int
	entries []listEntry
	total   int
}

func (l *lister) dir(abs, rel string, comp []string, ign *ignoreNode, depth int) error {
	if err := l.ctx.Err(); err != nil {
		return err
	}
	entries, err := l.fs.ReadDir(abs)
	if err != nil {
		if depth == 1 {
			return err
		}
		return nil // an unreadable subdirectory is listed but not entered
	}
	ign = ign.child(abs, comp)
	for _, e := range entries {
		name := e.Name()
		sub := append(comp[:len(comp):len(comp)], name)
		if ign.ignored(sub, e.IsDir()) {
			continue
		}
		shown := name
		if rel != "" {
			shown = rel + "/" + name
		}
		l.total++
		if len(l.entries) < maxListEntries {
			l.entries = append(l.entries, listEntry{Name: shown, IsDir: e.IsDir()})
		}
		if e.IsDir() && depth < l.max && name != ".git" {
			child := filepath.Join(abs, name)
			if l.secret(child) {
				continue
			}
			if err := l.dir(child, shown, sub, ign, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}
