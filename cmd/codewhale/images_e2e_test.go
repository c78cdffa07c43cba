package main

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

// imageCLI is a cli whose model is model, marked with vision or without,
// with shot.png (64×48) in the workspace.
func imageCLI(t *testing.T, srv *fakemodel.Server, model string, vision bool) *cli {
	t.Helper()
	c := newCLI(t, srv)
	see := "false"
	if vision {
		see = "true"
	}
	c.config("model = \"" + model + "\"\n[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n[models.\"" + model + "\"]\nvision = " + see + "\n")
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 64, 48))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.ws, "shot.png"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

// pngPart checks that r carries one image_url part, a PNG data URL whose
// bytes decode to 64×48.
func pngPart(t *testing.T, r *fakemodel.Request) {
	t.Helper()
	urls := r.ImageURLs()
	if len(urls) != 1 || !strings.HasPrefix(urls[0], "data:image/png;base64,") {
		t.Fatalf("image parts %.80q", urls)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(urls[0], "data:image/png;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(raw)); err != nil || cfg.Width != 64 || cfg.Height != 48 {
		t.Fatalf("the data URL decodes to %+v (%v), want 64×48", cfg, err)
	}
}

// CONTRACT.md §14.11: exec --image sends the image with the prompt, one-shot
// and as an agent.
func TestExecImage(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("grey."), fakemodel.Text("still grey."))
	c := imageCLI(t, srv, "seer", true)
	for i, args := range [][]string{{"exec", "--image", "shot.png", "what is it?"}, {"exec", "--auto", "--image", "shot.png", "what is it?"}} {
		out, errOut, code := c.run(args...)
		if code != 0 || !strings.Contains(out, "grey.") {
			t.Fatalf("%q: code %d out %q err %q", args, code, out, errOut)
		}
		r := srv.Requests()[i]
		pngPart(t, r)
		if got := r.LastUserText(); !strings.HasPrefix(got, "what is it?") {
			t.Errorf("%q: the model got the text %q", args, got)
		}
	}
}

// A model without vision, or an image refused, gets no request and a clear
// error.
func TestExecImageRefusals(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	c := imageCLI(t, srv, "blind", false)
	for _, args := range [][]string{{"exec", "--image", "shot.png", "q"}, {"exec", "--auto", "--image", "shot.png", "q"}} {
		_, errOut, code := c.run(args...)
		if code != exitFailure || !strings.Contains(errOut, "blind cannot take images (the model table gives it no vision), so nothing was sent.") {
			t.Errorf("%q: code %d, stderr %q", args, code, errOut)
		}
	}
	see := imageCLI(t, srv, "seer", true)
	if err := os.WriteFile(filepath.Join(see.ws, "notes.png"), []byte("plain text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	far := filepath.Join(t.TempDir(), "far.png")
	if err := os.WriteFile(far, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"notes.png": "holds text, not an image", far: "is outside the workspace",
		"missing.png": "no such file"} {
		_, errOut, code := see.run("exec", "--image", path, "q")
		if code != exitFailure || !strings.Contains(errOut, "--image "+path+": ") || !strings.Contains(errOut, want) {
			t.Errorf("%s: code %d, stderr %q, want %q", path, code, errOut, want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the server got %d requests", n)
	}
}
