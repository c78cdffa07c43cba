package file

import (
	"encoding/json"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

// replaceEntry is one full-file replacement of the replace/changes form.
type replaceEntry struct{ path, content string }

type patchReq struct {
	path    string
	hasPath bool
	form    string // "patch", "replace" or "changes"
	text    string
	entries []replaceEntry
	fuzz    int
	create  bool
}

func parsePatch(d *tools.Decoded[input]) (patchReq, error) {
	r := patchReq{path: d.In.Path, hasPath: d.Has("path"), create: d.In.CreateIfMissing}
	var err error
	var given []string
	for _, f := range []string{"patch", "replace", "changes"} {
		if d.Has(f) {
			given = append(given, "`"+f+"`")
		}
	}
	if len(given) > 1 {
		return r, tools.InvalidInput("Cannot use %s simultaneously. Choose exactly one of `patch`, `replace`, or the "+
			"deprecated `changes` alias.", strings.Join(given, ", "))
	}
	if len(given) == 0 {
		return r, tools.MissingField("patch, replace, or deprecated changes")
	}
	r.form = strings.Trim(given[0], "`")
	if r.form == "patch" {
		r.text = d.In.Patch
	} else if r.entries, err = parseEntries(d.Raw(r.form), r.form); err != nil {
		return r, err
	}
	r.fuzz, _ = countOr(d, "fuzz", d.In.Fuzz, defaultFuzz)
	r.fuzz = min(r.fuzz, maxFuzz)
	return r, nil
}

// parseEntries reads a non-empty [{path, content}] array.
func parseEntries(raw json.RawMessage, field string) ([]replaceEntry, error) {
	var items []tools.Args
	if tools.JSONType(raw) != "array" || json.Unmarshal(raw, &items) != nil {
		return nil, &tools.Error{Kind: tools.KindInvalidInput, Field: field,
			Msg: "`" + field + "` must be an array of objects like {path, content}"}
	}
	if len(items) == 0 {
		return nil, &tools.Error{Kind: tools.KindInvalidInput, Field: field, Msg: "`" + field + "` cannot be empty"}
	}
	out := make([]replaceEntry, len(items))
	for i, it := range items {
		var err error
		if out[i].path, err = entryString(it, field, "path"); err != nil {
			return nil, err
		}
		if out[i].content, err = entryString(it, field, "content"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func entryString(it tools.Args, field, key string) (string, error) {
	v, ok := it[key]
	if !ok || string(v) == "null" {
		return "", tools.MissingField(field + "[]." + key)
	}
	var s string
	if tools.JSONType(v) != "string" || json.Unmarshal(v, &s) != nil {
		return "", &tools.Error{Kind: tools.KindInvalidInput, Field: field + "[]." + key, Msg: "field '" + field +
			"[]." + key + "' must be a string; got " + tools.JSONType(v) + ". Received: " + tools.Preview(v)}
	}
	return s, nil
}

// sections resolves a patch-form request into file sections: with `path`
// every hunk targets that file; otherwise each header section stands alone.
// The returned note flags a `path` that overrides a different header. A
// patch with any part File cannot apply (binary, symlink, submodule) is
// refused whole.
func (r patchReq) sections() ([]filePatch, string, error) {
	p, err := parseUnified(r.text)
	if err != nil {
		return nil, "", err
	}
	if err := refuseUnsupported(p.files); err != nil {
		return nil, "", err
	}
	if p.hunkCount() == 0 && !anyMetaOnly(p.files) {
		return nil, "", tools.InvalidInput("Patch must include at least one hunk header in numeric unified-diff form %s.", hunkForm)
	}
	if r.hasPath {
		return r.pathSection(p)
	}
	if len(p.files) == 0 {
		return nil, "", tools.InvalidInput("Patch contains hunks but no file headers (`---`/`+++`). Provide `path` or add headers.")
	}
	if len(p.loose) > 0 {
		return nil, "", tools.InvalidInput("Patch hunk encountered before any file header. Add `---`/`+++` headers or provide `path`.")
	}
	for i, f := range p.files {
		switch {
		case f.path == "" || ((f.rename || f.copy) && f.oldPath == ""):
			return nil, "", tools.InvalidInput("Patch has a `diff --git` section without file names; add `---`/`+++` headers (or `rename from`/`rename to`).")
		case len(f.hunks) == 0 && !f.metaOnly():
			return nil, "", tools.InvalidInput("Patch section for `%s` has no hunks (`@@ ... @@`).", f.path)
		}
		p.files[i].mayCreate = r.create
	}
	return p.files, "", nil
}

// pathSection applies every hunk of a single-file patch to `path`.
func (r patchReq) pathSection(p parsedPatch) ([]filePatch, string, error) {
	headers := p.headerPaths()
	if len(headers) > 1 {
		return nil, "", tools.InvalidInput("Patch references multiple files (%s) but `path` was provided. Remove "+
			"`path` to apply a multi-file patch, or provide a single-file patch.", fileList(headers))
	}
	hunks := append([]hunk(nil), p.loose...)
	for _, f := range p.files {
		if f.rename || f.copy || (f.newMode != "" && !f.created) {
			return nil, "", tools.InvalidInput("Patch for `%s` renames, copies or changes the mode of a file, which "+
				"`path` cannot express; nothing was written. Remove `path` and let the patch's headers name the files.", f.path)
		}
		hunks = append(hunks, f.hunks...)
	}
	note := ""
	if len(headers) == 1 && strings.TrimPrefix(headers[0], "./") != strings.TrimPrefix(r.path, "./") {
		note = "Note: patch headers reference `" + headers[0] + "` but `path` overrides to `" + r.path + "`."
	}
	return []filePatch{{path: r.path, hunks: hunks, mayCreate: r.create}}, note, nil
}

// refuseUnsupported refuses, for the whole patch, a section File cannot
// apply faithfully: it writes text files only.
func refuseUnsupported(files []filePatch) error {
	for _, f := range files {
		switch {
		case f.binary:
			return tools.ExecutionFailed("Patch section for `%s` is a binary patch (`GIT binary patch` or `Binary files … "+
				"differ`); File patch applies text hunks only, so nothing was written. Apply it with Bash (`git apply`), "+
				"or leave that file out of the patch.", f.path)
		case f.special == "120000":
			return tools.ExecutionFailed("Patch section for `%s` has mode 120000 (a symbolic link); File patch writes "+
				"regular files only, so nothing was written. Create or change the link with Bash (`ln -sfn`), or leave it "+
				"out of the patch.", f.path)
		case f.special != "":
			return tools.ExecutionFailed("Patch section for `%s` has mode %s (a submodule); File patch writes regular "+
				"files only, so nothing was written. Update the submodule with Bash (`git submodule`), or leave it out of "+
				"the patch.", f.path, f.special)
		}
	}
	return nil
}

func anyMetaOnly(files []filePatch) bool {
	for _, f := range files {
		if f.metaOnly() {
			return true
		}
	}
	return false
}

// fileList shows up to six names, then "... (+k more)".
func fileList(files []string) string {
	if len(files) <= 6 {
		return strings.Join(files, ", ")
	}
	return strings.Join(files[:6], ", ") + ", ... (+" + itoa(len(files)-6) + " more)"
}

// PatchPreflight is what a patch input would touch, computed without
// reading or writing any file (for policy and approval).
type PatchPreflight struct {
	TouchedFiles []string `json:"touched_files"`
	Creates      []string `json:"creates,omitempty"`
	Deletes      []string `json:"deletes,omitempty"`
	FilesTotal   int      `json:"files_total"`
	HunksTotal   int      `json:"hunks_total"`
}

// Preflight parses a File patch (or apply_patch) input and reports the
// files it names. Creates lists sections whose old side is /dev/null, the
// targets of renames and copies (or all targets with create_if_missing);
// Deletes lists deletions and rename sources. Whether a replace entry
// creates a file depends on the disk and is not reported.
func Preflight(in json.RawMessage) (PatchPreflight, error) {
	_, r, err := decodePatch(in, nil)
	if err != nil {
		return PatchPreflight{}, err
	}
	var pf PatchPreflight
	if r.form != "patch" {
		for _, e := range r.entries {
			if !contains(pf.TouchedFiles, e.path) {
				pf.TouchedFiles = append(pf.TouchedFiles, e.path)
			}
		}
		pf.FilesTotal = len(r.entries)
		return pf, nil
	}
	secs, _, err := r.sections()
	if err != nil {
		return PatchPreflight{}, err
	}
	pf.FilesTotal = len(secs)
	add := func(list *[]string, p string) {
		if !contains(*list, p) {
			*list = append(*list, p)
		}
	}
	for _, s := range secs {
		if s.rename {
			add(&pf.TouchedFiles, s.oldPath)
			add(&pf.Deletes, s.oldPath)
		}
		add(&pf.TouchedFiles, s.path)
		pf.HunksTotal += len(s.hunks)
		switch {
		case s.deleted:
			add(&pf.Deletes, s.path)
		case s.created || s.mayCreate || s.rename || s.copy:
			add(&pf.Creates, s.path)
		}
	}
	return pf, nil
}
