package prompt

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/readme"
)

// readmeSectionRows are the Section column of README.md's "What the model
// is told" table, each row's alternatives split on " / ".
func readmeSectionRows(t *testing.T) [][]string {
	t.Helper()
	s := readme.Section(t, "What the model is told")
	var rows [][]string
	for _, line := range strings.Split(s, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || strings.TrimSpace(cells[0]) != "" {
			continue
		}
		name := strings.TrimSpace(cells[1])
		if name == "Section" || strings.HasPrefix(name, "---") {
			continue
		}
		if name == "" { // the sizes table that follows starts with an empty cell
			break
		}
		rows = append(rows, strings.Split(name, " / "))
	}
	return rows
}

// README.md "What the model is told": the table names the embedded sections (internal/prompt/sections/) in the
// order every composition uses them, one of a row's alternatives per mode or host; editing is left out in Plan and
// verification without Run.
func TestREADMEPromptSectionsAreTheComposition(t *testing.T) {
	t.Parallel()
	rows := readmeSectionRows(t)
	if len(rows) < 8 {
		t.Fatalf("found %d rows in README.md's section table; the parser is stale", len(rows))
	}
	names, err := fs.Glob(files, "sections/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var named []string
	for _, r := range rows {
		named = append(named, r...)
	}
	for _, n := range names {
		n = strings.TrimSuffix(strings.TrimPrefix(n, "sections/"), ".md")
		if !slices.Contains(named, n) {
			t.Errorf("section %s.md is not in README.md's table", n)
		}
	}
	for _, env := range matrix() {
		got := sectionsFor(env)
		if len(got) != len(rows) {
			t.Fatalf("%s: %d sections %v, README.md's table has %d rows", describe(env), len(got), got, len(rows))
		}
		for i, name := range got {
			if !slices.Contains(rows[i], name) {
				t.Errorf("%s: section %d is %s, README.md's row says %v", describe(env), i+1, name, rows[i])
			}
		}
		text := Compose(env).Text
		if writes := env.Mode != posture.Plan; strings.Contains(text, "# Editing") != writes {
			t.Errorf("%s: the editing section present %v, want %v", describe(env), !writes, writes)
		}
		hasRun := slices.ContainsFunc(env.Tools, func(t Tool) bool { return t.Name == "Run" })
		if strings.Contains(text, "# Verification") != hasRun {
			t.Errorf("%s: the verification section present %v with Run offered %v", describe(env), !hasRun, hasRun)
		}
	}
}
