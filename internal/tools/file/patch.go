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

func parsePatch(a tools.Args) (patchReq, error) {
	var r patchReq
	var err error
	if r.path, r.hasPath, err = a.String("path"); err != nil {
		return r, err
	}
	var given []string
	for _, f := range []string{"patch", "replace", "changes"} {
		if a.Has(f) {
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
		if r.text, _, err = a.String("patch"); err != nil {
			return r, err
		}
	} else if r.entries, err = parseEntries(a[r.form], r.form); err != nil {
		return r, err
	}
	if r.fuzz, _, err = uintOr(a, "fuzz", defaultFuzz); err != nil {
		return r, err
	}
	r.fuzz = min(r.fuzz, maxFuzz)
	r.create, _, err = a.Bool("create_if_missing")
	return r, err
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
// The returned note flags a `path` that overrides a different header.
func (r patchReq) sections() ([]filePatch, string, error) {
	p, err := parseUnified(r.text)
	if err != nil {
		return nil, "", err
	}
	if p.hunkCount() == 0 {
		return nil, "", tools.InvalidInput("Patch must include at least one hunk header in numeric unified-diff form %s.", hunkForm)
	}
	headers := p.headerPaths()
	if r.hasPath {
		if len(headers) > 1 {
			return nil, "", tools.InvalidInput("Patch references multiple files (%s) but `path` was provided. Remove "+
				"`path` to apply a multi-file patch, or provide a single-file patch.", fileList(headers))
		}
		hunks := append([]hunk(nil), p.loose...)
		for _, f := range p.files {
			hunks = append(hunks, f.hunks...)
		}
		note := ""
		if len(headers) == 1 && strings.TrimPrefix(headers[0], "./") != strings.TrimPrefix(r.path, "./") {
			note = "Note: patch headers reference `" + headers[0] + "` but `path` overrides to `" + r.path + "`."
		}
		return []filePatch{{path: r.path, hunks: hunks, created: r.create}}, note, nil
	}
	if len(p.files) == 0 {
		return nil, "", tools.InvalidInput("Patch contains hunks but no file headers (`---`/`+++`). Provide `path` or add headers.")
	}
	if len(p.loose) > 0 {
		return nil, "", tools.InvalidInput("Patch hunk encountered before any file header. Add `---`/`+++` headers or provide `path`.")
	}
	for i, f := range p.files {
		if len(f.hunks) == 0 {
			return nil, "", tools.InvalidInput("Patch section for `%s` has no hunks (`@@ ... @@`).", f.path)
		}
		p.files[i].created = f.created || r.create
	}
	return p.files, "", nil
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
// files it names. Creates lists sections whose old side is /dev/null (or all
// targets with create_if_missing); whether a replace entry creates a file
// depends on the disk and is not reported.
func Preflight(in json.RawMessage) (PatchPreflight, error) {
	args, err := tools.ParseArgs(in)
	if err != nil {
		return PatchPreflight{}, err
	}
	delete(args, "action")
	if err := foldAliases(args, "patch"); err != nil {
		return PatchPreflight{}, err
	}
	r, err := parsePatch(args)
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
	for _, s := range secs {
		if !contains(pf.TouchedFiles, s.path) {
			pf.TouchedFiles = append(pf.TouchedFiles, s.path)
		}
		pf.HunksTotal += len(s.hunks)
		if s.deleted {
			pf.Deletes = append(pf.Deletes, s.path)
		} else if s.created {
			pf.Creates = append(pf.Creates, s.path)
		}
	}
	return pf, nil
}
