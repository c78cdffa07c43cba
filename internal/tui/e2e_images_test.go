package tui_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// imagePane runs codewhale on model with a config that says whether it
// takes images, in a workspace holding shot.png (64×48).
func imagePane(t *testing.T, srv *fakemodel.Server, model string, vision bool) (*pane, string) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	cfg := "model = \"" + model + "\"\n[models.\"" + model + "\"]\nvision = " + map[bool]string{true: "true", false: "false"}[vision] + "\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 64, 48))); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(ws, "shot.png")
	if err := os.WriteFile(shot, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return launchTUI(t, srv, launch{home: home, ws: ws}), shot
}

// bracketedPaste pastes text into the pane as a terminal pastes a drop:
// inside bracketed-paste markers.
func (p *pane) bracketedPaste(text string) {
	p.t.Helper()
	f := filepath.Join(p.t.TempDir(), "paste")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		p.t.Fatal(err)
	}
	for _, args := range [][]string{{"load-buffer", "-b", "img", f}, {"paste-buffer", "-p", "-d", "-b", "img", "-t", p.session}} {
		if out, err := tmux(args...).CombinedOutput(); err != nil {
			p.t.Fatalf("tmux %s: %v\n%s", args[0], err, out)
		}
	}
}

// CONTRACT.md §14.11: a path pasted while the person is typing becomes a
// chip, the draft stays and takes more keys, and the request carries the
// image as an image_url part whose data URL decodes to the file's pixels.
func TestE2EPastedImagePathGoesToTheModel(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("a grey rectangle"))
	p, shot := imagePane(t, srv, "seer", true)
	p.keys("-l", "what is ")
	p.waitFor("what is")
	p.bracketedPaste(shot)
	p.waitFor("[Image #1 64×48 PNG", "Backspace removes")
	p.keys("-l", "this?")
	p.waitFor("what is this?")
	p.keys("Enter")
	p.waitFor("● a grey rectangle")
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got, _, _ := strings.Cut(reqs[0].LastUserText(), "\n<turn_meta>"); got != "what is this?" {
		t.Errorf("the model got the text %q", got)
	}
	urls := reqs[0].ImageURLs()
	if len(urls) != 1 || !strings.HasPrefix(urls[0], "data:image/png;base64,") {
		t.Fatalf("image parts %.80q", urls)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(urls[0], "data:image/png;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil || cfg.Width != 64 || cfg.Height != 48 {
		t.Fatalf("the data URL decodes to %+v (%v), want 64×48", cfg, err)
	}
	p.waitFor("▎ what is this?", "[Image #1 64×48 PNG")
}

// A model marked without vision gets no request; the person reads why and
// keeps the draft and the chip.
// README.md "TUI keys": images go only to a model that can see
func TestE2EImagesToAModelWithoutVisionSendNothing(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("unreachable"))
	p, shot := imagePane(t, srv, "blind", false)
	p.bracketedPaste(shot)
	p.waitFor("[Image #1 64×48 PNG")
	p.keys("-l", "look")
	p.keys("Enter")
	p.waitFor("blind cannot take images", "Nothing was sent")
	screen := p.capture()
	if !strings.Contains(screen, "❯ look") || !strings.Contains(screen, "[Image #1 64×48 PNG") {
		t.Errorf("the draft or the chip went:\n%s", screen)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the server got %d requests", n)
	}
}

// Ctrl+V in the middle of a draft reads the clipboard's image with the
// OS's tool (a stand-in xclip on PATH here) into a chip; the draft stays.
// README.md "TUI keys": Ctrl+V pastes the clipboard's image as a chip
func TestE2ECtrlVPastesTheClipboardImage(t *testing.T) {
	t.Parallel()
	home, ws, bin := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("model = \"seer\"\n[models.seer]\nvision = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 30, 20))); err != nil {
		t.Fatal(err)
	}
	clip := filepath.Join(t.TempDir(), "clip.png")
	if err := os.WriteFile(clip, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncase \"$*\" in *TARGETS*) echo image/png ;; *) cat '" + clip + "' ;; esac\n"
	if err := os.WriteFile(filepath.Join(bin, "xclip"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := launchTUI(t, nil, launch{home: home, ws: ws, env: []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}})
	p.keys("-l", "see this")
	p.waitFor("see this")
	p.keys("C-v")
	p.waitFor("[Image #1 30×20 PNG", "❯ see this")
}
