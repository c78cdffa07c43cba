//go:build unix

package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// Ctrl+V reads the clipboard's image with the OS tool (a stand-in xclip
// here) into a chip; with no reader installed it is a one-line hint.
func TestCtrlVPastesTheClipboardImage(t *testing.T) {
	ws, bin := t.TempDir(), t.TempDir()
	clip := filepath.Join(t.TempDir(), "clip.png")
	writeImage(t, clip, 32, 16)
	script := "#!/bin/sh\ncase \"$*\" in *TARGETS*) echo image/png ;; *) cat '" + clip + "' ;; esac\n"
	if err := os.WriteFile(filepath.Join(bin, "xclip"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+"/usr/bin:/bin")
	t.Setenv("WAYLAND_DISPLAY", "")
	d := visionDirect(t, ws, "eyes")
	_, cmd := d.m.Update(tea.KeyMsg{Type: tea.KeyCtrlV})
	d.run(cmd)
	if d.m.attach.Len() != 1 || !strings.Contains(d.m.attach.View(d.m.w), "[Image #1 32×16 PNG") {
		t.Fatalf("chips %d, row %q, status %q", d.m.attach.Len(), d.m.attach.View(d.m.w), d.m.status.msg.text)
	}

	// A clipboard holding a copied image file's path attaches the file;
	// other text is pasted.
	writeImage(t, filepath.Join(ws, "copied.png"), 12, 10)
	for _, text := range []string{"file://" + filepath.Join(ws, "copied.png"), "plain words"} {
		script := "#!/bin/sh\ncase \"$*\" in *TARGETS*) echo UTF8_STRING ;; *) printf '%s' '" + text + "' ;; esac\n"
		if err := os.WriteFile(filepath.Join(bin, "xclip"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		_, cmd = d.m.Update(tea.KeyMsg{Type: tea.KeyCtrlV})
		_, next := d.m.Update(cmd()) // the read's message starts the file's read
		if strings.HasPrefix(text, "file://") {
			d.run(next)
		}
	}
	if d.m.attach.Len() != 2 || !strings.Contains(d.m.attach.View(d.m.w), "[Image #2 12×10 PNG") || d.m.comp.Value() != "plain words" {
		t.Fatalf("chips %d, row %q, composer %q, status %q", d.m.attach.Len(), d.m.attach.View(d.m.w), d.m.comp.Value(), d.m.status.msg.text)
	}

	t.Setenv("PATH", t.TempDir())
	_, cmd = d.m.Update(tea.KeyMsg{Type: tea.KeyCtrlV})
	d.run(cmd)
	if !strings.Contains(d.m.status.msg.text, "Pasting an image needs wl-paste (wl-clipboard) or xclip") || d.m.attach.Len() != 2 {
		t.Errorf("without a reader: status %q, chips %d", d.m.status.msg.text, d.m.attach.Len())
	}
}
