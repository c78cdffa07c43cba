package file

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

// pending is one file's planned change: its state before, its new text
// (nil to delete) and the permission bits it will have (0: as before, or
// newFileMode for a new file).
type pending struct {
	abs, display string
	before       existing
	after        *string
	mode         fs.FileMode
	link         bool // abs is a symbolic link itself; before.data is its target text
}

// finalMode is the mode pd's file is written with.
func (pd *pending) finalMode() fs.FileMode {
	switch {
	case pd.mode != 0:
		return pd.mode
	case pd.before.fi != nil:
		return keptMode(pd.before.fi)
	}
	return newFileMode
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
	RenamedFrom    string `json:"renamed_from,omitempty"`
	CopiedFrom     string `json:"copied_from,omitempty"`
	Mode           string `json:"mode,omitempty"` // git's new mode when the patch set one
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
	// Diagnostics is what the language servers found the patch broke
	// (CONTRACT.md §6.13).
	Diagnostics string `json:"diagnostics,omitempty"`
}

// plan accumulates the pending changes of one patch call; a file named by
// several sections is patched in sequence from its planned text.
type plan struct {
	tc    *tools.Context
	fs    *pinned                         // the call's boundary, each directory pinned for the transaction
	check func(display, abs string) error // the write gate (secrets, protected paths)
	read  func(display, abs string) error // the read gate of a copy's source (secrets)
	order []string
	byAbs map[string]*pending
	gated map[*pending]bool // passed the write gate
	moves []move            // explicit renames, for metadata
	res   patchResult
}

// move is a rename a patch's git headers asked for.
type move struct{ from, to *pending }

func newPlan(tc *tools.Context, b *pinned, check, read func(display, abs string) error) *plan {
	return &plan{tc: tc, fs: b, check: check, read: read, byAbs: map[string]*pending{}, gated: map[*pending]bool{},
		res: patchResult{Success: true}}
}

// current returns the planned state of display's file, a file the patch
// writes, loading it on first use.
func (p *plan) current(display string) (*pending, error) { return p.load(display, true) }

// source returns the planned state of a copy's source: it is only read, so
// it passes the secret guard but needs no protected-write approval (a
// protected file may be copied from in a Suggest call). A later section
// that writes it still goes through the write gate.
func (p *plan) source(display string) (*pending, error) { return p.load(display, false) }

func (p *plan) load(display string, write bool) (*pending, error) {
	abs, err := p.tc.ResolvePath(display)
	if err != nil {
		return nil, err
	}
	pd, ok := p.byAbs[abs]
	if ok && (!write || p.gated[pd]) {
		return pd, nil
	}
	gate := p.read
	if write {
		gate = p.check
	}
	if err := gate(display, abs); err != nil {
		return nil, err
	}
	if ok {
		p.gated[pd] = true
		return pd, nil
	}
	before, err := loadExisting(p.fs, abs)
	if err != nil {
		return nil, err
	}
	if err := before.refuseTooLarge("patch", abs); err != nil {
		return nil, err
	}
	pd = &pending{abs: abs, display: display, before: before}
	if before.fi != nil {
		s := string(before.data)
		pd.after = &s
	}
	p.byAbs[abs] = pd
	p.gated[pd] = write
	p.order = append(p.order, abs)
	return pd, nil
}

// link is the planned state of display when it names a symbolic link
// (nil when it does not): a deletion removes the link itself, as `git
// apply` does, and the link's content is its target text, so the patch
// must remove exactly that. The target is left alone.
func (p *plan) link(display string) (*pending, error) {
	dir, err := p.tc.ResolvePath(filepath.Dir(display))
	if err != nil {
		return nil, nil // the section's own resolution reports it
	}
	abs := filepath.Join(dir, filepath.Base(display))
	if pd, ok := p.byAbs[abs]; ok {
		if pd.link {
			return pd, nil
		}
		return nil, nil
	}
	fi, err := p.fs.Stat(abs)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil, nil
	}
	if err := p.check(display, abs); err != nil {
		return nil, err
	}
	target, err := p.fs.Readlink(abs)
	if err != nil {
		return nil, readFailed(abs, err)
	}
	pd := &pending{abs: abs, display: display, before: existing{fi: fi, data: []byte(target)}, after: &target, link: true}
	p.byAbs[abs] = pd
	p.gated[pd] = true
	p.order = append(p.order, abs)
	return pd, nil
}

func (p *plan) touch(display string) {
	if !contains(p.res.TouchedFiles, display) {
		p.res.TouchedFiles = append(p.res.TouchedFiles, display)
	}
}

// addSection applies one file section to the planned state of its file.
func (p *plan) addSection(s filePatch, fuzz int) error {
	if s.rename || s.copy {
		return p.addMove(s, fuzz)
	}
	var pd *pending
	var err error
	if s.deleted {
		pd, err = p.link(s.path)
	}
	if pd == nil && err == nil {
		pd, err = p.current(s.path)
	}
	if err != nil {
		return err
	}
	exists := pd.after != nil
	switch {
	case s.deleted && !exists:
		return tools.ExecutionFailed("File `%s` does not exist at `%s` to delete.", s.path, pd.abs)
	case s.created && exists:
		return tools.ExecutionFailed("Patch creates `%s` (its old side is /dev/null or `new file mode`), but it already "+
			"exists at `%s`; nothing was written. Patch it with a diff against its current content, or delete it first.", s.path, pd.abs)
	case !exists && !s.created && !s.mayCreate:
		return tools.ExecutionFailed("File `%s` does not exist at `%s`. Set create_if_missing=true for new files or "+
			"include headers for file creation.", s.path, pd.abs)
	}
	base := ""
	if exists {
		base = *pd.after
	}
	ft, st, err := applyHunks(splitFile(base), s.hunks, fuzz, s.path)
	if err != nil {
		return err
	}
	if s.deleted {
		if len(ft.lines) > 0 {
			return tools.ExecutionFailed("Patch deletes `%s`, but %d line(s) of it are not among the lines the patch "+
				"removes, so the file differs from what the patch expects; nothing was written. Read the file and "+
				"regenerate the patch.", s.path, len(ft.lines))
		}
		pd.after = nil
	} else {
		text := ft.String()
		pd.after = &text
		pd.mode = gitMode(s.newMode, pd)
	}
	p.record(s, st, fileSummary{Path: s.path, Created: !exists && !s.deleted, Deleted: s.deleted})
	return nil
}

// addMove applies a git rename or copy: the target gets the source's
// content with the section's hunks applied; a rename removes the source.
// Like `git apply`, the source is read as it was before the patch, so the
// order of git's sections does not matter (git lists a copy's source,
// changed, before the copy).
func (p *plan) addMove(s filePatch, fuzz int) error {
	verb := map[bool]string{true: "renames", false: "copies"}[s.rename]
	load := p.current // a rename removes its source
	if !s.rename {
		load = p.source
	}
	src, err := load(s.oldPath)
	if err != nil {
		return err
	}
	dst, err := p.current(s.path)
	if err != nil {
		return err
	}
	switch {
	case src.before.fi == nil:
		return tools.ExecutionFailed("Patch %s `%s` to `%s`, but `%s` does not exist at `%s`; nothing was written.",
			verb, s.oldPath, s.path, s.oldPath, src.abs)
	case s.rename && src.after != nil && *src.after != string(src.before.data):
		return tools.ExecutionFailed("Patch renames `%s` to `%s` after an earlier section changed `%s`; a rename "+
			"reads the file as it was, so that change would be lost and nothing was written. Split the patch.",
			s.oldPath, s.path, s.oldPath)
	case src == dst:
		return tools.ExecutionFailed("Patch %s `%s` onto itself; nothing was written.", verb, s.path)
	case dst.after != nil:
		return tools.ExecutionFailed("Patch %s `%s` to `%s`, but `%s` already exists at `%s`; nothing was written.",
			verb, s.oldPath, s.path, s.path, dst.abs)
	}
	ft, st, err := applyHunks(splitFile(string(src.before.data)), s.hunks, fuzz, s.path)
	if err != nil {
		return err
	}
	text := ft.String()
	dst.after = &text
	dst.mode = gitMode(s.newMode, src)
	if dst.mode == 0 {
		dst.mode = keptMode(src.before.fi)
	}
	sum := fileSummary{Path: s.path, Created: true}
	if s.rename {
		src.after = nil
		p.moves = append(p.moves, move{src, dst})
		p.touch(s.oldPath)
		sum.RenamedFrom = s.oldPath
	} else {
		sum.CopiedFrom = s.oldPath
	}
	p.record(s, st, sum)
	return nil
}

// record counts one applied section.
func (p *plan) record(s filePatch, st hunkStats, sum fileSummary) {
	p.res.FilesApplied++
	p.res.HunksApplied += st.applied
	p.res.HunksTotal += len(s.hunks)
	p.res.FuzzUsed += st.fuzz
	p.res.HunksWithFuzz += st.withFuzz
	p.res.HunksRelocated += st.relocated
	p.touch(s.path)
	sum.Hunks, sum.HunksApplied, sum.FuzzUsed, sum.HunksWithFuzz, sum.HunksRelocated =
		len(s.hunks), st.applied, st.fuzz, st.withFuzz, st.relocated
	sum.Mode = s.newMode
	p.res.FileSummaries = append(p.res.FileSummaries, sum)
}

// gitMode maps git's file mode onto permission bits for pd's file: 100755
// adds the execute bits where the file (or a new file's default) has read
// bits, 100644 removes them; "" keeps what pd already plans.
func gitMode(mode string, pd *pending) fs.FileMode {
	cur := pd.finalMode()
	switch mode {
	case "100755":
		return cur | (cur&0o444)>>2
	case "100644":
		return cur &^ 0o111
	}
	return pd.mode
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
	for _, s := range r.FileSummaries {
		switch {
		case s.RenamedFrom != "":
			parts = append(parts, "Renamed "+s.RenamedFrom+" -> "+s.Path+".")
		case s.CopiedFrom != "":
			parts = append(parts, "Copied "+s.CopiedFrom+" -> "+s.Path+".")
		}
	}
	if note != "" {
		parts = append(parts, note)
	}
	return strings.Join(parts, " ")
}

// patch runs File patch: every new text is computed first, then written in
// one transaction (see commit).
func (t *Tool) patch(ctx context.Context, tc *tools.Context, r patchReq) (tools.Result, error) {
	b := openBoundary(tc)
	defer b.Close()
	pins := pin(b)
	defer pins.Close()
	p := newPlan(tc, pins, func(display, abs string) error { return t.checkWrite("patch", tc, display, abs) },
		func(_, abs string) error { return t.refuseSecret("patch", abs) })
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
	t.refreshReadStamps(p)
	p.res.Message = p.message(note)
	if t.diag != nil {
		p.res.Diagnostics = t.diag.Changed(ctx, p.patchChanges())
	}
	res := tools.OK(jsonText(p.res))
	res.Metadata = mutationMetadata(p.mutation())
	return res, nil
}

// refreshReadStamps keeps read-before-edit state current for files the
// session had already read: their new stat is recorded, deleted ones are
// forgotten. A file the patch created still needs a read before an edit.
func (t *Tool) refreshReadStamps(p *plan) {
	for _, abs := range p.order {
		pd := p.byAbs[abs]
		if pd.after == nil {
			t.snaps.Forget(abs)
			continue
		}
		if !t.snaps.Has(abs) {
			continue
		}
		if fi, err := p.fs.Stat(abs); err == nil {
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
		case pd.after != nil && pd.before.fi != nil && *pd.after == string(pd.before.data) &&
			pd.finalMode() == keptMode(pd.before.fi):
		default:
			out = append(out, pd)
		}
	}
	return out
}
