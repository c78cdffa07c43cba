package file

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/codewhale/codewhale/internal/tools"
)

type writeReq struct{ path, content string }

// write replaces or creates a file atomically. It needs no prior read and
// records a fresh snapshot, so an edit may follow.
func (t *Tool) write(ctx context.Context, tc *tools.Context, r writeReq) (tools.Result, error) {
	abs, err := tc.ResolvePath(r.path)
	if err != nil {
		return tools.Result{}, err
	}
	if err := t.checkWrite("write", tc, r.path, abs); err != nil {
		return tools.Result{}, err
	}
	b := openBoundary(tc)
	defer b.Close()
	old, err := loadExisting(b, abs)
	if err != nil {
		return tools.Result{}, err
	}
	created := old.fi == nil
	summary := fmt.Sprintf("Wrote %d bytes to %s", len(r.content), abs)
	if created {
		summary = fmt.Sprintf("Created %s (%d bytes)", abs, len(r.content))
	}
	if old.tooLarge {
		// Over the read limit: replaced without reading it, so no diff.
		summary += fmt.Sprintf(" (the old file was %d bytes, over the %d-byte read limit; it was not read and no diff is shown)",
			old.fi.Size(), maxReadBytes)
	}
	if !created && !old.tooLarge && string(old.data) == r.content {
		t.snaps.Record(abs, old.fi)
		res := tools.OK(summary + "\n(no changes)")
		res.Metadata = mutationMetadata(Mutation{Files: []MutationFile{{Path: r.path, Outcome: "updated"}}})
		return res, nil
	}
	mode := newFileMode
	if !created {
		mode = keptMode(old.fi)
	}
	if _, err := mkdirTracked(b, filepath.Dir(abs)); err != nil {
		return tools.Result{}, tools.ExecutionFailed("Failed to create directory %s: %v", filepath.Dir(abs), unwrapPath(err))
	}
	d, err := b.OpenParent(abs)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("Failed to write %s: %v", abs, unwrapPath(err))
	}
	defer d.Close()
	if t.editor != nil {
		if err := t.editorWrite(ctx, abs, r.content); err != nil {
			return tools.Result{}, err
		}
	} else if err := t.fs.writeAtomic(d, abs, []byte(r.content), mode); err != nil {
		return tools.Result{}, tools.ExecutionFailed("Failed to write %s: %v", abs, unwrapPath(err))
	}
	if fi, err := d.Stat(abs); err == nil {
		t.snaps.Record(abs, fi)
	}
	outcome := "updated"
	if created {
		outcome = "created"
	}
	diff := ""
	if !old.tooLarge {
		diff = fileDiff(tc.Rel(abs), string(old.data), r.content, created, false)
	}
	res := tools.OK(withDiff(diff, summary))
	res.Metadata = mutationMetadata(Mutation{Diff: diff, Files: []MutationFile{{Path: r.path, Outcome: outcome}}})
	change := FileChange{Path: abs, After: []byte(r.content)}
	if !created && !old.tooLarge {
		change.Before = old.data
	}
	return t.noted(ctx, res, change), nil
}
