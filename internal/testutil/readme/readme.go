// Package readme gives tests README.md's sections and their fenced blocks,
// so a test that holds a README claim reads the very text it checks.
package readme

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Text is README.md, found from the test's directory upward (the
// directory holding go.mod).
func Text(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			raw, err := os.ReadFile(filepath.Join(dir, "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			return string(raw)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// Section is the text of README.md's "## <title>" section, up to the next
// "## " heading (its ### subsections included); a test fails without it.
func Section(t testing.TB, title string) string {
	t.Helper()
	_, s, ok := strings.Cut(Text(t), "\n## "+title+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", title)
	}
	s, _, _ = strings.Cut(s, "\n## ")
	return s
}

// Blocks are the bodies of the fenced blocks in text, without their
// ``` lines.
func Blocks(text string) []string {
	var blocks []string
	parts := strings.Split(text, "\n```")
	for k := 1; k+1 < len(parts); k += 2 {
		body := parts[k]
		blocks = append(blocks, body[strings.Index(body, "\n")+1:])
	}
	return blocks
}
