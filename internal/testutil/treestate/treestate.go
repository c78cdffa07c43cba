// Package treestate fingerprints a directory tree for tests that compare
// two states of it byte for byte.
package treestate

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Fingerprint is one line per entry under root (but the relative paths in
// skip and what is under them): its path, type and mode bits, and a file's
// content hash or a symlink's target. Two trees with equal fingerprints are
// equal byte for byte, mode bits included.
func Fingerprint(t testing.TB, root string, skip ...string) string {
	t.Helper()
	var rows []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, s := range skip {
			if rel == s {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		row := fmt.Sprintf("%s %v", filepath.ToSlash(rel), info.Mode())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			row += " -> " + target
		case info.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			row += fmt.Sprintf(" %x", sha256.Sum256(data))
		}
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(rows)
	return strings.Join(rows, "\n")
}
