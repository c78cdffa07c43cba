package file

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzPatchParse feeds arbitrary patch text and file content to the parser
// and the hunk applier: neither may panic, a file's lines must join back to
// its exact bytes, and applying never invents invalid UTF-8. The seeds are
// the shapes git and models produce; testdata/fuzz/FuzzPatchParse holds more
// (real `git diff` output of the differential fixture).
func FuzzPatchParse(f *testing.F) {
	for _, s := range [][2]string{
		{"@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\nb\nc\n"},
		{"--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n", "a\nb"},
		{"diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-x\n+y\n", "x\n"},
		{"diff --git a/r b/r\nold mode 100644\nnew mode 100755\n", ""},
		{"diff --git \"a/caf\\303\\251\" \"b/caf\\303\\251\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/caf\\303\\251\"\n@@ -0,0 +1 @@\n+x\n", ""},
		{"@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+B\r\n", "a\r\nb\r\n"},
		{"--- a/f\n+++ b/f\n@@ -3,0 +4,2 @@\n+n\n+m\n@@ -9 +10,0 @@\n-z\n", "1\n2\n3\n4\n5\n6\n7\n8\nz\n"},
		{"diff --git a/d b/d\nGIT binary patch\nliteral 3\nKcmZQzWMT8C\n", ""},
		{"@@ -1 +1 @@\n-lf\n+x\n-- \n2.39.5\n", "lf\ncrlf\r\nlast"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, patch, base string) {
		if got := splitFile(base).String(); got != base {
			t.Fatalf("splitFile(%q).String() = %q", base, got)
		}
		p, err := parseUnified(patch)
		if err != nil {
			return
		}
		sections := append([]filePatch{{path: "loose", hunks: p.loose}}, p.files...)
		for _, s := range sections {
			ft, _, err := applyHunks(splitFile(base), s.hunks, defaultFuzz, s.path)
			if err != nil {
				continue
			}
			out := ft.String()
			if utf8.ValidString(patch) && utf8.ValidString(base) && !utf8.ValidString(out) {
				t.Fatalf("applying %q to %q made invalid UTF-8 %q", patch, base, out)
			}
			if len(s.hunks) == 0 && out != base && strings.TrimSuffix(out, "\n") != base {
				t.Fatalf("no hunks changed %q into %q", base, out)
			}
		}
	})
}
