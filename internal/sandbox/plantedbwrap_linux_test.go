package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// Without Landlock the probe tries bubblewrap once and then wraps every
// command in it. A bwrap planted in a workspace directory on PATH (an
// activated .venv/bin) must never be that program: it would run
// unconfined, and so would everything it was handed.
func TestPlantedBwrapIsNotTheSandbox(t *testing.T) {
	ws := t.TempDir()
	bin := filepath.Join(ws, ".venv", "bin")
	marker := filepath.Join(ws, "PWNED")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	got := workingBwrap(ws)
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the probe ran the bwrap planted in the workspace")
	}
	if got != "" && filepath.Dir(got) == bin {
		t.Errorf("workingBwrap = %s, the planted one", got)
	}
	// Outside a workspace the same directory is an ordinary PATH entry: the
	// lookup is what skips it, not the program's content.
	if workingBwrap(""); !exists(marker) {
		t.Errorf("with no workspace the planted bwrap was not found, so the test shows nothing")
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
