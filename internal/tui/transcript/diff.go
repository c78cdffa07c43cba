package transcript

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/tui/termtext"
)

// Mutation is the part of the File tool's `file.mutation` result metadata
// the UI draws (CONTRACT.md §14.3).
type Mutation struct {
	Diff  string `json:"diff"`
	Files []struct {
		Path    string `json:"path"`
		Outcome string `json:"outcome"`
	} `json:"files"`
	DiffTruncated bool `json:"diff_truncated"`
}

// MutationOf reads a mutation from result metadata. The metadata may hold
// the tool's own struct or decoded JSON; both go through JSON here so the
// UI needs no import of the tool.
func MutationOf(meta map[string]any) *Mutation {
	if meta == nil || meta["event"] != "file.mutation" {
		return nil
	}
	raw, err := json.Marshal(meta["mutation"])
	if err != nil {
		return nil
	}
	var m Mutation
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return &m
}

// DiffStats counts added and removed lines of a unified diff.
func DiffStats(diff string) (add, del int) {
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			add++
		case strings.HasPrefix(l, "-"):
			del++
		}
	}
	return add, del
}

// mutationBody is `<paths> +N −M` and the diff, capped at 14 lines.
func (e *Env) mutationBody(m *Mutation, w int) []string {
	diff := termtext.ExpandTabs(termtext.Sanitize(strings.TrimRight(m.Diff, "\n")))
	add, del := DiffStats(diff)
	var paths []string
	for _, f := range m.Files {
		p := f.Path
		if f.Outcome == "created" || f.Outcome == "deleted" {
			p += " (" + f.Outcome + ")"
		}
		paths = append(paths, p)
	}
	stats := e.Theme.DiffAdd.Render(fmt.Sprintf("+%d", add)) + " " + e.Theme.DiffDel.Render(fmt.Sprintf("−%d", del))
	out := []string{termtext.Truncate(strings.Join(paths, ", "), w-12, "…") + "  " + stats}
	if diff == "" {
		return out
	}
	lines := strings.Split(diff, "\n")
	// File headers repeat what the first row says; keep the hunks.
	body := lines[:0:0]
	for _, l := range lines {
		if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "diff ") || strings.HasPrefix(l, "index ") {
			continue
		}
		body = append(body, l)
	}
	more := 0
	if len(body) > diffLines {
		more = len(body) - diffLines
		body = body[:diffLines]
	}
	for i, l := range body {
		body[i] = termtext.Truncate(l, w, "…")
	}
	out = append(out, e.colorDiff(body)...)
	if more > 0 || m.DiffTruncated {
		out = append(out, e.Theme.Dim.Render(fmt.Sprintf("… %d more diff lines (Alt+V)", more)))
	}
	return out
}

// colorDiff colours unified diff rows (theme.DiffLine).
func (e *Env) colorDiff(rows []string) []string {
	out := make([]string, len(rows))
	for i, l := range rows {
		out[i] = e.Theme.DiffLine(l)
	}
	return out
}
