package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// uncoveredSections are the docs/CONTRACT.md sections no test names yet,
// each with why. The list only shrinks: a section that gains a test must
// leave it (the test says so), and a new section must come with a test
// that names it (a comment citing CONTRACT.md and the section number) or a row
// here saying why not.
var uncoveredSections = map[string]string{
	"1": "prose only: the glossary defines the words the other sections use (registry, catalog, turn, step, …) and " +
		"names no behaviour of its own; each word's behaviour is tested in the section that defines it",
}

// sectionHeading is a `### N.M` heading, or a `## N.` chapter heading: a
// chapter with no subsections is one section, N.
var sectionHeading = regexp.MustCompile(`(?m)^(##|###) (\d+(?:\.\d+)?)\.? `)

// indexedSections is CONTRACT.md's sections in order: every N.M, and
// every chapter N that has no N.M under it.
func indexedSections(doc string) []string {
	var out []string
	chapter, hasSub := "", false
	flush := func() {
		if chapter != "" && !hasSub {
			out = append(out, chapter)
		}
	}
	for _, m := range sectionHeading.FindAllStringSubmatch(doc, -1) {
		if m[1] == "##" {
			flush()
			chapter, hasSub = m[2], false
			continue
		}
		hasSub = true
		out = append(out, m[2])
	}
	flush()
	return out
}

// TestContractSectionsAreNamedByTests lists the contract's sections that
// no test file (or test helper) names in a comment citing CONTRACT.md (or
// CONTRACT) and the section number, and fails on one that is neither named nor listed in
// uncoveredSections with a reason, or listed though a test names it.
func TestContractSectionsAreNamedByTests(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "CONTRACT.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := indexedSections(string(doc))
	if len(sections) < 50 {
		t.Fatalf("found only %d sections in CONTRACT.md; the heading pattern is stale", len(sections))
	}
	cited := map[string]bool{}
	cite := regexp.MustCompile(`CONTRACT(?:\.md)? \x{00A7}(\d+(?:\.\d+)?)(?:[^0-9.]|\.[^0-9]|$)`)
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join("..", "..", top), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return err
			}
			helper := strings.Contains(filepath.ToSlash(p), "/testutil/") || strings.Contains(filepath.ToSlash(p), "/paramtest/")
			if !strings.HasSuffix(p, "_test.go") && !helper {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range cite.FindAllStringSubmatch(string(b), -1) {
				cited[m[1]] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	missing := checkIndex(t, "CONTRACT.md", "uncoveredSections", sections, cited, uncoveredSections)
	if len(missing) > 0 {
		t.Errorf("CONTRACT.md sections no test names (add a comment citing CONTRACT.md and the section to the test that proves it, "+
			"or list the section in uncoveredSections with why): %s", strings.Join(missing, ", "))
	}
	named := 0
	for _, s := range sections {
		if cited[s] {
			named++
		}
	}
	t.Logf("%d of %d contract sections named by tests; %d listed uncovered", named, len(sections), len(uncoveredSections))
}

// checkIndex is the verdict of a document's section index: it fails on a
// listed section a test names now, a listed one without a reason or that
// the document no longer has, and returns the sections neither named nor
// listed (doc and list name them in the messages).
func checkIndex(t *testing.T, doc, list string, sections []string, cited map[string]bool, uncovered map[string]string) []string {
	t.Helper()
	var missing []string
	for _, s := range sections {
		why, listed := uncovered[s]
		switch {
		case cited[s] && listed:
			t.Errorf("%s section %q is named by a test now: remove it from %s", doc, s, list)
		case !cited[s] && !listed:
			missing = append(missing, s)
		case listed && strings.TrimSpace(why) == "":
			t.Errorf("%s section %q is listed uncovered without a reason", doc, s)
		}
	}
	for s := range uncovered {
		if !slices.Contains(sections, s) {
			t.Errorf("%s lists %q, which %s no longer has", list, s, doc)
		}
	}
	return missing
}
