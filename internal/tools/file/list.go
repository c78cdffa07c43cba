package file

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/codewhale/codewhale/internal/ignore"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/budget"
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

func parseList(d *tools.Decoded[input]) (listReq, error) {
	r := listReq{path: optPath(d)}
	var has bool
	r.depth, has = countOr(d, "depth", d.In.Depth, 1)
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
	Note    string      `json:"note,omitempty"`
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
	ign := ignoreFor(abs, tc.Workspace)
	l := &lister{ctx: ctx, max: r.depth, ign: ign, entries: []listEntry{}, fs: b, secret: t.Secret}
	if err := l.dir(abs, "", ign.dir, 1); err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, walkError(ctx.Err(), "list")
		}
		return tools.Result{}, tools.ExecutionFailed("Failed to list %s: %v", abs, unwrapPath(err))
	}
	return tools.OK(renderList(l.entries, l.total, tc.ResultBudget())), nil
}

// renderList is the bare entry list when every entry fits (CONTRACT.md §6.2),
// else the object form with as many entries as the 500-entry cap and the
// result budget allow.
func renderList(entries []listEntry, total, chars int) string {
	if total <= maxListEntries {
		if s := jsonText(entries); budget.Runes(s) <= chars {
			return s
		}
	}
	text, _ := budget.Prefix(len(entries), chars, func(k int) string {
		res := listTruncated{Entries: entries[:k], Listed: k, Total: total, Trunc: true,
			Note: "list a subdirectory (`path`) or a smaller `depth` to see the rest"}
		if k < len(entries) {
			res.Note = fmt.Sprintf("the %d-character result budget held %d entries; ", chars, k) + res.Note
		}
		return jsonText(res)
	})
	return text
}

type lister struct {
	ctx     context.Context
	max     int
	ign     ignoreContext
	fs      *confine.Set
	secret  func(abs string) bool // never entered (its entries' names stay private too)
	entries []listEntry
	total   int
}

// dir lists directory abs (rel below the listed one) whose parent's ignore
// rules are parent.
func (l *lister) dir(abs, rel string, parent *ignore.Dir, depth int) error {
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
	d := parent
	if m := l.ign.m; m != nil && rel != "" {
		var has ignore.Present
		for _, e := range entries {
			has |= ignore.PresentFor(e.Name())
		}
		d = m.Enter(parent, l.ign.path(rel), has)
	}
	for _, e := range entries {
		name := e.Name()
		shown := name
		if rel != "" {
			shown = rel + "/" + name
		}
		if l.ign.m != nil && l.ign.m.Ignored(d, l.ign.path(shown), e.IsDir()) {
			continue
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
			if err := l.dir(child, shown, d, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}
