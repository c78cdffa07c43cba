// Package fstree writes trees of files for tests: a map from a
// slash-separated path to its content, written below a root with the
// folders it needs.
package fstree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes files below root with mode 0644, creating folders (0755);
// a failure ends the test.
func Write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	WriteMode(t, root, files, 0o644)
}

// WriteMode is Write with the files' mode given.
func WriteMode(t testing.TB, root string, files map[string]string, mode os.FileMode) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}
