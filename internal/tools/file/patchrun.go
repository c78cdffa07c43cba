package file

import (
	"os"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

// pending is one file's planned change: its state before and its new text
// (nil to delete).
type pending struct {
	abs, display string
	before       existing
	after        *string
}

type fileSummary struct {
	Path           string `json:"path"`
	Hunks          int    `json:"hunks"`
	HunksApplied   int    `json:"hunks_applied"`
	FuzzUsed       int    `json:"fuzz_used"`
	HunksWithFuzz  int    `json:"hunks_with_fuzz"`
	HunksRelocated int    `json:"hunks_relocated,omitempty"`
	Created        bool   `json:"created"`
	Deleted        bool   `json:"deleted"`
}

type patchResult struct {
	Success        bool          `json:"success"`
	FilesApplied   int           `json:"files_applied"`
	FilesTotal     int           `json:"files_total"`
	HunksApplied   int           `json:"hunks_applied"`
	HunksTotal     int           `json:"hunks_total"`
	FuzzUsed       int           `json:"fuzz_used"`
	HunksWithFuzz  int           `json:"hunks_with_fuzz"`
	HunksRelocated int           `json:"hunks_relocated,omitempty"`
	TouchedFiles   []string      `json:"touched_files"`
	FileSummaries  []fileSummary `json:"file_summaries"`
	Message        string        `json:"message"`
}

// plan accumulates the pending changes of one patch call; a file named by
// several sections is patched in sequence from its planned text.
type plan struct {
	tc    *tools.Context
	order []string
	byAbs map[string]*pending
	res   patchResult
}

func newPlan(tc *tools.Context) *plan {
	return &plan{tc: tc, byAbs: map[string]*pending{}, res: patchResult{Success: true}}
}

// current returns the planned state of display's file, loading it on first
// use.
func (p *plan) current(display string) (*pending, error) {
	abs, err := p.tc.ResolvePath(display)
	if err != nil {
		return nil, err
	}
	if pd, ok := p.byAbs[abs]; ok {
		return pd, nil
	}
	before, err := loadExisting(abs)
	if err != nil {
		return nil, err
	}
	pd := &pending{abs: abs, display: display, before: before}
	if before.fi != nil {
		s := string(before.data)
		pd.after = &s
	}
	p.byAbs[abs] = pd
	p.order = append(p.order, abs)
	return pd, nil
}

func (p *plan) touch(display string) {
	if !contains(p.res.TouchedFiles, display) {
		p.res.TouchedFiles = append(p.res.TouchedFiles, display)
	}
}

// addSection applies one file section's hunks to the planned text.
func (p *plan) addSection(s filePatch, fuzz int) error {
	pd, err := p.current(s.path)
	if err != nil {
		return err
	}
	exists := pd.after != nil
	if !exists && !s.created {
		return tools.ExecutionFailed("File `%s` does not exist at `%s`. Set create_if_missing=true for new files or "+
			"include headers for file creation.", s.path, pd.abs)
	}
	if s.deleted && !exists {
		return tools.ExecutionFailed("File `%s` does not exist at `%s` to delete.", s.path, pd.abs)
	}
	base := ""
	if exists {
		base = *pd.after
	}
	lines, st, err := applyHunks(splitText(base), s.hunks, fuzz, s.path)
	if err != nil {
		return err
	}
	if s.deleted {
		pd.after = nil
	} else {
		text := joinText(lines, base)
		pd.after = &text
	}
	p.res.FilesApplied++
	p.res.HunksApplied += st.applied
	p.res.HunksTotal += len(s.hunks)
	p.res.FuzzUsed += st.fuzz
	p.res.HunksWithFuzz += st.withFuzz
	p.res.HunksRelocated += st.relocated
	p.touch(s.path)
	p.res.FileSummaries = append(p.res.FileSummaries, fileSummary{Path: s.path, Hunks: len(s.hunks),
		HunksApplied: st.applied, FuzzUsed: st.fuzz, HunksWithFuzz: st.withFuzz, HunksRelocated: st.relocated,
		Created: !exists && !s.deleted, Deleted: s.deleted})
	return nil
}

// addReplace plans a full-file replacement.
func (p *plan) addReplace(e replaceEntry) error {
	pd, err := p.current(e.path)
	if err != nil {
		return err
	}
	created := pd.before.fi == nil
	content := e.content
	pd.after = &content
	p.res.FilesApplied++
	p.touch(e.path)
	p.res.FileSummaries = append(p.res.FileSummaries, fileSummary{Path: e.path, Created: created})
	return nil
}

// message is the human summary of the applied patch.
func (p *plan) message(note string) string {
	r := p.res
	parts := []string{}
	if r.HunksTotal > 0 {
		parts = append(parts, "Applied "+itoa(r.HunksApplied)+"/"+itoa(r.HunksTotal)+" hunks across "+itoa(r.FilesApplied)+" file(s).")
	} else {
		parts = append(parts, "Applied "+itoa(r.FilesApplied)+" file change(s).")
	}
	if len(r.TouchedFiles) > 0 {
		parts = append(parts, "Files: "+fileList(r.TouchedFiles)+".")
	}
	if r.FuzzUsed > 0 {
		parts = append(parts, "Fuzz used on "+itoa(r.HunksWithFuzz)+" hunk(s) (total fuzz: "+itoa(r.FuzzUsed)+").")
	}
	if r.HunksRelocated > 0 {
		parts = append(parts, itoa(r.HunksRelocated)+" hunk(s) applied with stale line numbers (relocated to their unique context).")
	}
	if note != "" {
		parts = append(parts, note)
	}
	return strings.Join(parts, " ")
}

// patch runs File patch: every new text is computed first, then written in
// one transaction (see commit).
func (t *Tool) patch(tc *tools.Context, r patchReq) (tools.Result, error) {
	p := newPlan(tc)
	note := ""
	if r.form == "patch" {
		secs, n, err := r.sections()
		if err != nil {
			return tools.Result{}, err
		}
		note = n
		p.res.FilesTotal = len(secs)
		for _, s := range secs {
			if err := p.addSection(s, r.fuzz); err != nil {
				return tools.Result{}, err
			}
		}
	} else {
		p.res.FilesTotal = len(r.entries)
		for _, e := range r.entries {
			if err := p.addReplace(e); err != nil {
				return tools.Result{}, err
			}
		}
	}
	if err := t.commit(p); err != nil {
		return tools.Result{}, err
	}
	t.refreshSnapshots(p)
	p.res.Message = p.message(note)
	res := tools.OK(jsonText(p.res))
	res.Metadata = mutationMetadata(p.mutation())
	return res, nil
}

// refreshSnapshots keeps read-before-edit state current for files the
// session had already read: their new stat is recorded, deleted ones are
// forgotten. A file the patch created still needs a read before an edit.
func (t *Tool) refreshSnapshots(p *plan) {
	for _, abs := range p.order {
		pd := p.byAbs[abs]
		if pd.after == nil {
			t.snaps.Forget(abs)
			continue
		}
		if !t.snaps.Has(abs) {
			continue
		}
		if fi, err := os.Stat(abs); err == nil {
			t.snaps.Record(abs, fi)
		}
	}
}

// changed lists the planned changes that alter the disk, in plan order.
func (p *plan) changed() []*pending {
	var out []*pending
	for _, abs := range p.order {
		pd := p.byAbs[abs]
		switch {
		case pd.after == nil && pd.before.fi == nil: // created and deleted again: nothing to do
		case pd.after != nil && pd.before.fi != nil && *pd.after == string(pd.before.data):
		default:
			out = append(out, pd)
		}
	}
	return out
}
