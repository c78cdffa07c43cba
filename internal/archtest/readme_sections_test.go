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

// uncoveredReadme are README.md's sections (## and ### headings) no test
// names yet, each with why. Like uncoveredSections it only shrinks: a
// section whose claims a test can reach is named by that test (a comment
// `README.md "<heading>"`), and one it cannot is listed here with why.
var uncoveredReadme = map[string]string{}

// readmeHeading is a `## Title` or `### Title` line of README.md.
var readmeHeading = regexp.MustCompile(`(?m)^###? (.+?)\s*$`)

// readmeCite is a test's citation of a README section by its heading.
var readmeCite = regexp.MustCompile(`README(?:\.md)? "([^"\n]+)"`)

// TestREADMESectionsAreNamedByTests fails on a README section that no test
// names and uncoveredReadme does not list, on a citation of a heading the
// README does not have, and on a listed section a test names now.
func TestREADMESectionsAreNamedByTests(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var sections []string
	inFence := false
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if m := readmeHeading.FindStringSubmatch(line); m != nil && !inFence {
			sections = append(sections, m[1])
		}
	}
	if len(sections) < 20 {
		t.Fatalf("found only %d sections in README.md; the heading pattern is stale", len(sections))
	}
	cited := map[string]bool{}
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join("..", "..", top), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") || strings.Contains(filepath.ToSlash(p), "/archtest/") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range readmeCite.FindAllStringSubmatch(joinComments(string(b)), -1) {
				if !slices.Contains(sections, m[1]) {
					t.Errorf("%s cites README.md %q, which is no heading of README.md", p, m[1])
				}
				cited[m[1]] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if missing := checkIndex(t, "README.md", "uncoveredReadme", sections, cited, uncoveredReadme); len(missing) > 0 {
		t.Errorf("README.md sections no test names (cite README.md \"<heading>\" in the test that proves its claims, "+
			"or list it in uncoveredReadme with why): %q", missing)
	}
}
