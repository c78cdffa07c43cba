//go:build unix

package images

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// standIn writes an executable script named name into dir.
func standIn(t *testing.T, dir, name, script string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// The readers are real processes: stand-ins on PATH that answer as
// xclip and wl-paste do, from a file holding the "clipboard".
func TestClipboardReadsTheImageWithTheOSTool(t *testing.T) {
	png := encodePNG(t, pattern(8, 4, false))
	dir := t.TempDir()
	clip := filepath.Join(dir, "clip.png")
	if err := os.WriteFile(clip, png, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	// xclip: TARGETS lists image/png; -t image/png -o prints it. It also
	// records its environment, which must be scrubbed.
	standIn(t, bin, "xclip", `env > "`+dir+`/env"
case "$*" in
*TARGETS*) printf 'TARGETS\nimage/png\nUTF8_STRING\n' ;;
*image/png*) cat "`+clip+`" ;;
*) echo "unexpected: $*" >&2; exit 2 ;;
esac
`)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+"/usr/bin:/bin")
	t.Setenv("DEEPSEEK_API_KEY", "sk-secret-value")
	got, err := Clipboard{GOOS: "linux", Getenv: func(string) string { return "" }}.Read(context.Background())
	if err != nil || !bytes.Equal(got.Image, png) {
		t.Fatalf("Read = %d bytes, %v; want the PNG", len(got.Image), err)
	}
	env, _ := os.ReadFile(filepath.Join(dir, "env"))
	if strings.Contains(string(env), "sk-secret-value") {
		t.Error("xclip got the API key in its environment")
	}

	// Wayland first when WAYLAND_DISPLAY is set; text when no image.
	standIn(t, bin, "wl-paste", `case "$*" in
--list-types) printf 'text/plain;charset=utf-8\nTEXT\n' ;;
*text/plain*) printf 'hello from wayland' ;;
*) exit 2 ;;
esac
`)
	got, err = Clipboard{GOOS: "linux", Getenv: func(k string) string { return map[string]string{"WAYLAND_DISPLAY": "w-0"}[k] }}.Read(context.Background())
	if err != nil || got.Text != "hello from wayland" || got.Image != nil {
		t.Fatalf("Read = %+v, %v", got, err)
	}
}

func TestClipboardWithoutAReaderIsAHint(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Clipboard{GOOS: "linux", Getenv: func(string) string { return "" }}.Read(context.Background())
	var nr *NoReaderError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "needs wl-paste (wl-clipboard) or xclip") {
		t.Fatalf("err = %v", err)
	}
	_, err = Clipboard{GOOS: "darwin"}.Read(context.Background())
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "needs pngpaste (brew install pngpaste) or osascript") {
		t.Fatalf("darwin: err = %v", err)
	}
}

// A reader in the workspace (an activated venv's bin on PATH) is never
// the one run.
func TestClipboardSkipsWorkspaceReaders(t *testing.T) {
	ws := t.TempDir()
	venv := filepath.Join(ws, ".venv", "bin")
	if err := os.MkdirAll(venv, 0o755); err != nil {
		t.Fatal(err)
	}
	standIn(t, venv, "xclip", `touch "`+ws+`/planted-ran"; echo image/png`)
	t.Setenv("PATH", venv)
	_, err := Clipboard{Workspace: ws, GOOS: "linux", Getenv: func(string) string { return "" }}.Read(context.Background())
	var nr *NoReaderError
	if !errors.As(err, &nr) {
		t.Errorf("err = %v, want the no-reader hint", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "planted-ran")); err == nil {
		t.Error("the workspace's xclip ran")
	}
}

func TestParsePNGf(t *testing.T) {
	t.Parallel()
	if b, ok := parsePNGf([]byte("«data PNGf89504E47»\n")); !ok || !bytes.Equal(b, []byte{0x89, 'P', 'N', 'G'}) {
		t.Errorf("parsePNGf = %x, %v", b, ok)
	}
}
