package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// outside names documents a clone of the repository does not contain: the
// planning documents the code once cited (tools.md, engine.md, tui.md,
// DECISIONS) and the product note (TOOL_SURFACE). docs/CONTRACT.md §15 and
// Appendix A hold what they said, in our words.
var outside = regexp.MustCompile(`\b(?:tools|engine|tui)\.md\b|\bDECISIONS\b|TOOL_SURFACE|shared/spec`)

// inRepo is a section citation of an in-repo document: `CONTRACT.md §9.1`,
// `docs/ARCHITECTURE.md §6`, a list sharing one name (`CONTRACT.md §6.1,
// §6.3 and §15.17`, `§2–§7`), `§2.3 of docs/CONTRACT.md`, or an issue's
// section (`issue 11 §4`), which names no document.
var inRepo = regexp.MustCompile(`(?:(?:CONTRACT|ARCHITECTURE)\.md\s*§\s?[\dA]+(?:\.\d+)*|issues?\s+\d+\s*§\s?\d+(?:\.\d+)*)` +
	`(?:(?:\s*(?:,|and|or|/|–|-|, and)\s*)§\s?\d+(?:\.\d+)*)*|§\s?\d+(?:\.\d+)*\s+of\s+(?:docs/)?(?:CONTRACT|ARCHITECTURE)\.md`)

var exempt = map[string]bool{"scripts/rewrite-citations.go": true, "internal/archtest/citations_test.go": true}

// citedSection pulls the section number out of a CONTRACT.md citation.
var citedSection = regexp.MustCompile(`§\s?(\d+(?:\.\d+)*)`)

// TestCitationsStayInTheRepo fails when a Go file cites a document outside
// the repository, or a bare § that names no in-repo document, or a
// CONTRACT.md section that does not exist.
func TestCitationsStayInTheRepo(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	sections := contractSections(t, root)
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "third_party" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		// The migration script and this check name the old citations they
		// rewrite or refuse.
		if !strings.HasSuffix(name, ".go") || exempt[filepath.ToSlash(rel)] {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		checkCitations(t, rel, joinComments(string(src)), sections)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 300 {
		t.Fatalf("only %d Go files checked; the walk is not reading the repository", checked)
	}
}

// joinComments folds a comment wrapped over lines ("CONTRACT.md\n// §9.9")
// into one line, so a citation split by the wrap reads whole.
func joinComments(src string) string {
	return regexp.MustCompile(`\s*\n\s*//\s*`).ReplaceAllString(src, " ")
}

func checkCitations(t *testing.T, file, src string, sections map[string]bool) {
	t.Helper()
	for _, m := range outside.FindAllString(src, -1) {
		t.Errorf("%s cites %q, a document outside the repository; cite docs/CONTRACT.md or docs/ARCHITECTURE.md (Appendix A maps the old sections)", file, m)
	}
	for _, c := range inRepo.FindAllString(src, -1) {
		if !strings.Contains(c, "CONTRACT.md") {
			continue
		}
		for _, n := range citedSection.FindAllStringSubmatch(c, -1) {
			if !sections[n[1]] {
				t.Errorf("%s cites CONTRACT.md §%s in %q, which docs/CONTRACT.md does not have", file, n[1], c)
			}
		}
	}
	if rest := inRepo.ReplaceAllString(src, ""); strings.Contains(rest, "§") {
		i := strings.Index(rest, "§")
		t.Errorf("%s has a § citation that names no in-repo document: %q", file, excerpt(rest, i))
	}
}

func excerpt(s string, i int) string {
	lo, hi := max(0, i-60), min(len(s), i+20)
	return s[lo:hi]
}

// contractSections are the section numbers docs/CONTRACT.md defines: its
// headings, and the numbered items of §15 (settled decisions).
func contractSections(t *testing.T, root string) map[string]bool {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "CONTRACT.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	part := ""
	heading := regexp.MustCompile(`^#{2,3} (\d+(?:\.\d+)*)\.? `)
	item := regexp.MustCompile(`^(\d+)\. `)
	for _, line := range strings.Split(string(doc), "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			out[m[1]] = true
			part = strings.SplitN(m[1], ".", 2)[0]
			continue
		}
		if m := item.FindStringSubmatch(line); m != nil && part == "15" {
			out["15."+m[1]] = true
		}
	}
	if !out["9.1"] || !out["15.24"] {
		t.Fatalf("docs/CONTRACT.md sections not read: %d found", len(out))
	}
	return out
}
