package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/png"
	"os"
	"os/exec"
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
	srv := fakemodel.New(t, fakemodel.Text("grey."), fakemodel.Text("still grey."), fakemodel.Text("as before."))
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
	// The agent run's session keeps the image once, by digest, beside its
	// journal, and a resumed run sends it again from there.
	stored, _ := filepath.Glob(filepath.Join(c.home, ".codewhale", "sessions", "*.images", "*.png"))
	if len(stored) != 1 {
		t.Fatalf("stored images %q, want one", stored)
	}
	if out, errOut, code := c.run("exec", "--continue", "and now?"); code != 0 || !strings.Contains(out, "as before.") {
		t.Fatalf("--continue: code %d out %q err %q", code, out, errOut)
	}
	pngPart(t, srv.Requests()[2])
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

// runIn is run with stdin.
func (c *cli) runIn(stdin string, args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	var out, errb bytes.Buffer
	cmd := c.command(args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		c.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// lastUserImages counts the image parts of r's last user message.
func lastUserImages(r *fakemodel.Request) int {
	ms := r.Messages()
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i]["role"] != "user" {
			continue
		}
		n := 0
		parts, _ := ms[i]["content"].([]any)
		for _, p := range parts {
			if pm, _ := p.(map[string]any); pm["type"] == "image_url" {
				n++
			}
		}
		return n
	}
	return 0
}

// CONTRACT.md §13.3: --input-format stream-json runs each stdin line as a
// turn; its image parts (base64 source, data URL, workspace path) reach
// the model as image_url parts.
func TestExecStreamJSONInputWithImages(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("one."), fakemodel.Text("two."), fakemodel.Text("three."))
	c := imageCLI(t, srv, "seer", true)
	shot, err := os.ReadFile(filepath.Join(c.ws, "shot.png"))
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(shot)
	stdin := `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"first"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + b64 + `"}}]}}` + "\n\n" +
		`{"type":"user","message":{"content":[{"type":"text","text":"second"},{"type":"image_url","image_url":{"url":"data:image/png;base64,` + b64 + `"}},{"type":"image","path":"shot.png"}]}}` + "\n" +
		`{"type":"user","message":{"content":"third, text only"}}` + "\n"
	out, errOut, code := c.runIn(stdin, "exec", "--auto", "--input-format", "stream-json", "--output-format", "stream-json")
	if code != 0 {
		t.Fatalf("code %d stderr %s\n%s", code, errOut, out)
	}
	evs := lines(t, out)
	if last := evs[len(evs)-1]; last["type"] != "done" {
		t.Errorf("last line %v", last)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	pngPart(t, reqs[0])
	for i, want := range []struct {
		text   string
		images int
	}{{"first", 1}, {"second", 2}, {"third, text only", 0}} {
		if got := reqs[i].LastUserText(); !strings.HasPrefix(got, want.text+"\n") {
			t.Errorf("request %d: text %q, want %q", i+1, got, want.text)
		}
		if n := lastUserImages(reqs[i]); n != want.images {
			t.Errorf("request %d: %d images in the message, want %d", i+1, n, want.images)
		}
	}
}

// A line that cannot be read stops the run with its number and why; the
// turns before it stand and nothing after it is sent.
func TestExecStreamJSONInputRefusals(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("one."))
	c := imageCLI(t, srv, "seer", true)
	notImage := base64.StdEncoding.EncodeToString([]byte("plain text\n"))
	stdin := `{"type":"user","message":{"content":"fine"}}` + "\n" +
		`{"type":"user","message":{"content":[{"type":"text","text":"x"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + notImage + `"}}]}}` + "\n" +
		`{"type":"user","message":{"content":"never sent"}}` + "\n"
	out, errOut, code := c.runIn(stdin, "exec", "--input-format", "stream-json")
	if code != exitFailure || !strings.Contains(errOut, "stdin line 2: part 2: the file holds text, not an image") || !strings.Contains(out, "one.") {
		t.Errorf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	for _, tt := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"--input-format", "stream-json", "a prompt"}, "give no PROMPT"},
		{"", []string{"--input-format", "stream-json"}, "stdin held no message"},
		{"not json\n", []string{"--input-format", "stream-json"}, "stdin line 1: not a JSON object"},
		{`{"type":"user","message":{"content":[{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}}`, []string{"--input-format", "stream-json"},
			"image_url must be a base64 data: URL; codewhale fetches no image"},
		{"", []string{"--input-format", "xml"}, "unknown --input-format"},
		{"", nil, "a headless run needs a PROMPT"},
	} {
		_, errOut, code := c.runIn(tt.stdin, append([]string{"exec"}, tt.args...)...)
		if code != exitFailure || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: code %d, stderr %q, want %q", tt.args, code, errOut, tt.want)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests after the refusals, want 1", n)
	}
}
