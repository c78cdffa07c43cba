package tui_test

import (
	"os"
	"path/filepath"
	"testing"
)

// Ctrl+G and Ctrl+X Ctrl+E hand the draft to $EDITOR and take the saved
// text back (a stub editor script appends to the file).
func TestE2EExternalEditorHandOff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stub := filepath.Join(dir, "stub-editor")
	script := "#!/bin/sh\nprintf '%s plus the editor\\n' \"$(cat \"$1\")\" > \"$1\"\n"
	if err := os.WriteFile(stub, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := launchTUI(t, nil, launch{home: t.TempDir(), ws: t.TempDir(), env: []string{"EDITOR=" + stub}})
	p.keys("-l", "draft")
	p.keys("C-g")
	p.waitFor("❯ draft plus the editor", "Message taken back from the editor")
	p.keys("C-x", "C-e")
	p.waitFor("❯ draft plus the editor plus the editor")
}
