package file

import (
	"context"
	"io/fs"

	"github.com/codewhale/codewhale/internal/tools"
)

type editReq struct{ path, search, replace string }

func parseEdit(d *tools.Decoded[input]) (editReq, error) {
	r := editReq{path: d.In.Path, search: d.In.Search}
	var err error
	r.replace, err = d.RawString("replace")
	return r, err
}

// edit replaces exactly one occurrence of search (CONTRACT.md §6.2 edit): the
// file must have been read in this session and be unchanged since; the
// result is written atomically, re-read and verified.
func (t *Tool) edit(ctx context.Context, tc *tools.Context, r editReq) (tools.Result, error) {
	if r.search == r.replace {
		return tools.Result{}, identicalPayload(r.search)
	}
	if r.search == "" {
		return tools.Result{}, tools.InvalidInput("search must not be empty")
	}
	if reason := corruptedPayload(r.search, r.replace); reason != "" {
		return tools.Result{}, tools.InvalidInput("edit_file refused corrupted payload: %s. Recovery: re-read the file "+
			"and retry with a complete replace, or use File action=\"patch\" for brace-heavy multi-line edits.", reason)
	}
	abs, err := tc.ResolvePath(r.path)
	if err != nil {
		return tools.Result{}, err
	}
	if err := t.checkWrite("edit", tc, r.path, abs); err != nil {
		return tools.Result{}, err
	}
	b := openBoundary(tc)
	defer b.Close()
	// Load, write, verify and stat in one pinned directory: a swap of its
	// name cannot split the sequence between two places.
	d, err := b.OpenParent(abs)
	if err != nil {
		return tools.Result{}, readFailed(abs, err)
	}
	defer d.Close()
	if err := t.requireFreshRead(d, abs, r.path); err != nil {
		return tools.Result{}, err
	}
	old, err := loadExisting(d, abs)
	if err != nil {
		return tools.Result{}, err
	}
	if old.fi == nil {
		return tools.Result{}, readFailed(abs, fs.ErrNotExist)
	}
	if err := old.refuseTooLarge("edit", abs); err != nil {
		return tools.Result{}, err
	}
	content := string(old.data)
	span, err := findEdit(content, r.search, r.replace, abs, r.path)
	if err != nil {
		return tools.Result{}, err
	}
	updated := content[:span.start] + span.text + content[span.end:]
	if err := t.fs.writeAtomic(d, abs, []byte(updated), keptMode(old.fi)); err != nil {
		return tools.Result{}, tools.ExecutionFailed("Failed to write %s: %v; the file was not changed.", abs, unwrapPath(err))
	}
	got, err := readFileIn(d, abs)
	if err != nil || string(got) != updated {
		return tools.Result{}, tools.ExecutionFailed("Edit of %s did not land: after writing, the file on disk does "+
			"not hold the edited text. Call File with action=\"read\" path=\"%s\" to see its current contents.", abs, r.path)
	}
	if fi, err := d.Stat(abs); err == nil {
		t.snaps.Record(abs, fi)
	}
	diff := fileDiff(tc.Rel(abs), content, updated, false, false)
	res := tools.OK(withDiff(diff, "Replaced 1 occurrence in "+abs+span.note))
	res.Metadata = mutationMetadata(Mutation{Diff: diff, Files: []MutationFile{{Path: r.path, Outcome: "updated"}}})
	return t.noted(ctx, res, FileChange{Path: abs, Before: old.data, After: got}), nil
}

// requireFreshRead enforces read-before-edit: a snapshot of abs from this
// session whose (size, mtime) still matches the file.
func (t *Tool) requireFreshRead(v fsView, abs, display string) error {
	var cur fs.FileInfo
	if fi, err := v.Stat(abs); err == nil {
		cur = fi
	}
	switch t.snaps.check(abs, cur) {
	case neverRead:
		return tools.ExecutionFailed("Refusing File action=\"edit\" for %s because it has not been read in this "+
			"session. Recovery: call File with action=\"read\" path=\"%s\" to inspect the current contents, then "+
			"retry the edit with a unique search string.", abs, display)
	case changed:
		return tools.ExecutionFailed("Refusing File action=\"edit\" for %s because it changed since the last File "+
			"action=\"read\" call. Recovery: call File with action=\"read\" path=\"%s\" again, then retry the edit "+
			"against the current contents.", abs, display)
	}
	return nil
}
