package file

import (
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/codewhale/codewhale/internal/gitquote"
)

const (
	// maxContentDiff bounds the diff a mutation result shows the model.
	maxContentDiff = 16384
	// maxMetaDiff bounds the diff kept in metadata for the UI.
	maxMetaDiff = 4 << 20
)

// Mutation is the `mutation` object of file.mutation metadata
// (CONTRACT.md §6.2): the workspace-relative unified diff, each touched file
// with its outcome, and renames detected in a patch.
type Mutation struct {
	Diff          string         `json:"diff"`
	Files         []MutationFile `json:"files"`
	Renames       []Rename       `json:"renames"`
	DiffTruncated bool           `json:"diff_truncated,omitempty"`
}

// MutationFile is one touched file: Path as the call gave it, Outcome one
// of "created", "updated", "deleted".
type MutationFile struct {
	Path    string `json:"path"`
	Outcome string `json:"outcome"`
}

// Rename is a deleted file whose exact content a patch re-created elsewhere.
type Rename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// MutationEvent is the metadata event name of a file change.
const MutationEvent = "file.mutation"

// mutationMetadata wraps m as result metadata.
func mutationMetadata(m Mutation) map[string]any {
	if len(m.Diff) > maxMetaDiff {
		m.Diff = m.Diff[:runeFloor(m.Diff, maxMetaDiff)]
		m.DiffTruncated = true
	}
	if m.Files == nil {
		m.Files = []MutationFile{}
	}
	if m.Renames == nil {
		m.Renames = []Rename{}
	}
	return map[string]any{"event": MutationEvent, "mutation": m}
}

// fileDiff is the unified diff of one file, labelled a/<rel> and b/<rel>
// (/dev/null for a created or deleted side). Equal texts give "".
// A path with a newline, tab, quote or backslash is quoted as git quotes it
// (gitquote, core.quotepath=false: other bytes stay readable), so it never
// splits a header line.
func fileDiff(rel, before, after string, created, deleted bool) string {
	from, to := headerLabel("a/", rel), headerLabel("b/", rel)
	if created {
		from = "/dev/null"
	}
	if deleted {
		to = "/dev/null"
	}
	return udiff.Unified(from, to, before, after)
}

// diffLabel is a diff path: prefix+rel, quoted as git quotes it.
func diffLabel(prefix, rel string) string { return gitquote.Name(prefix+rel, false, false) }

// headerLabel is a ---/+++ path; like git, a name with a space gets a
// trailing tab, so the end of the name is unambiguous.
func headerLabel(prefix, rel string) string {
	if strings.Contains(rel, " ") {
		return diffLabel(prefix, rel) + "\t"
	}
	return diffLabel(prefix, rel)
}

// withDiff renders "<diff>\n<summary>" for the model, the diff capped at
// maxContentDiff bytes with a note of what was left out.
func withDiff(diff, summary string) string {
	diff = strings.TrimSuffix(diff, "\n")
	if diff == "" {
		return summary
	}
	if len(diff) > maxContentDiff {
		cut := runeFloor(diff, maxContentDiff)
		if i := strings.LastIndexByte(diff[:cut], '\n'); i > 0 {
			cut = i
		}
		diff = diff[:cut] + "\n... [diff truncated: " + itoa(len(diff)-cut) + " more bytes; use Git diff to see the rest]"
	}
	return diff + "\n" + summary
}
