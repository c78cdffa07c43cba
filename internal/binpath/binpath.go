// Package binpath finds the helper programs codewhale itself runs (git,
// pdftotext, tesseract, gh, python3) on PATH without taking one the
// workspace could have put there. PATH often holds a workspace directory —
// an activated .venv/bin, direnv's bin, a relative ./node_modules/.bin —
// and a File patch can create an executable in it, so a plain
// exec.LookPath would let the model choose the program a read-only tool
// call runs.
package binpath

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// LookPath is exec.LookPath for name over PATH without its relative
// entries (the empty one included, which means the current directory) and
// without those inside workspace (an absolute path; "" skips that test).
// A name with a separator is looked up as given.
func LookPath(name, workspace string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) || strings.ContainsRune(name, '/') {
		return exec.LookPath(name)
	}
	for _, dir := range dirs(workspace) {
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// SearchPath is PATH as LookPath searches it: without its relative entries
// and those inside workspace. A helper that itself starts programs by name
// (a language server runs go, node or python) is given it as its PATH, so
// it cannot be led to a program the workspace put there either.
func SearchPath(workspace string) string {
	return strings.Join(dirs(workspace), string(filepath.ListSeparator))
}

// dirs are PATH's absolute entries outside workspace.
func dirs(workspace string) []string {
	if workspace != "" {
		if r, err := filepath.EvalSymlinks(workspace); err == nil {
			workspace = r
		}
	}
	var out []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) || workspace != "" && inside(dir, workspace) {
			continue
		}
		out = append(out, dir)
	}
	return out
}

// inside reports dir at or below root, after resolving links, so
// /home/u/proj/.venv/bin through a symlinked home still counts.
func inside(dir, root string) bool {
	dir = filepath.Clean(dir)
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	} else if !errors.Is(err, os.ErrNotExist) {
		return true // cannot tell: do not trust it
	}
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
