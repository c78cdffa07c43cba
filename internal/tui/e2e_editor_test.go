package tui_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"
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

// The editor gets the terminal itself on fds 0, 1 and 2 (vim stalls on
// "Output is not to a terminal" when handed a pipe), the file it opens ends
// in a newline, and the edit comes back with its lines intact: only the
// file's final newline is dropped.
// README.md "TUI keys": Ctrl+G hands the terminal to $VISUAL/$EDITOR; the saved text comes back into the composer
func TestE2EExternalEditorGetsTheTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stub := filepath.Join(dir, "tty-editor")
	script := `#!/bin/sh
f="$1"
ttys=""
for fd in 0 1 2; do if [ -t $fd ]; then ttys="$ttys$fd"; fi; done
last=$(tail -c 1 "$f" | od -An -c | tr -d ' ')
printf 'fds %s last %s\nsecond line\n' "$ttys" "$last" > "$f"
`
	if err := os.WriteFile(stub, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := launchTUI(t, nil, launch{home: t.TempDir(), ws: t.TempDir(), env: []string{"EDITOR=" + stub}})
	p.keys("-l", "draft")
	time.Sleep(150 * time.Millisecond) // a person's pause before the chord
	p.keys("C-g")
	p.waitFor(`❯ fds 012 last \n`, "second line", "Message taken back from the editor")
}

// A failed editor says its status once, by name, and keeps the draft.
func TestE2EExternalEditorFailureKeepsTheDraft(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stub := filepath.Join(dir, "bad-editor")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := launchTUI(t, nil, launch{home: t.TempDir(), ws: t.TempDir(), env: []string{"EDITOR=" + stub}})
	p.keys("-l", "keep me")
	time.Sleep(150 * time.Millisecond)
	p.keys("C-g")
	p.waitFor("❯ keep me", "The editor bad-editor exited with status 3; the draft is unchanged")
}
