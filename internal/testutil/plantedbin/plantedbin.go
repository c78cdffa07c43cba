// Package plantedbin plants programs in a workspace directory at the front
// of PATH (as an activated .venv/bin is), for the tests that check that
// codewhale's own helper programs (git, python3, pdftotext) are found past
// it (internal/binpath). A planted program only leaves a marker file.
package plantedbin

import (
	"os"
	"path/filepath"
	"testing"
)

// Plant writes each of names into ws/.venv/bin as an executable that
// creates ws/PLANTED-<name> and fails, puts that directory first on PATH
// for the rest of t (t.Setenv: the test cannot be parallel), and returns
// a check that reports the names whose planted program ran.
func Plant(t *testing.T, ws string, names ...string) (ran func() []string) {
	t.Helper()
	dir := filepath.Join(ws, ".venv", "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		script := "#!/bin/sh\ntouch '" + filepath.Join(ws, "PLANTED-"+n) + "'\nexit 3\n"
		if err := os.WriteFile(filepath.Join(dir, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() []string {
		var out []string
		for _, n := range names {
			if _, err := os.Stat(filepath.Join(ws, "PLANTED-"+n)); err == nil {
				out = append(out, n)
			}
		}
		return out
	}
}
