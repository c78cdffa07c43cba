package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// A hostile model asks read_media for a key, a file outside the workspace,
// a link out of it and a key folder copied into it, under every posture:
// the File boundary and the secret guard hold in each (CONTRACT.md §6.14),
// no byte of them reaches the provider, and a workspace image still reads.
func TestHostileReadMediaUnderEveryPosture(t *testing.T) {
	t.Parallel()
	for _, p := range hostilePostures {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			runHostileMedia(t, p)
		})
	}
}

func runHostileMedia(t *testing.T, p execPosture) {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 64, 48))); err != nil {
		t.Fatal(err)
	}
	// Each refused file is a real PNG whose bytes end in a canary, so a
	// read that got through would carry it to the provider.
	canaryPNG := append(append([]byte(nil), b.Bytes()...), "media-canary-0000"...)
	outside := t.TempDir()
	far := filepath.Join(outside, "far.png")
	if err := os.WriteFile(far, canaryPNG, 0o644); err != nil {
		t.Fatal(err)
	}
	escapes := "Path escapes workspace"
	cases := []struct{ path, want string }{
		{"~/.ssh/id_rsa.png", escapes},
		{far, escapes},
		{"link.png", escapes},
		{"backup/.ssh/id_rsa.png", "it is not read"}, // a copied home inside the workspace: the secret guard
		{"shot.png", "shot.png: 64×48 PNG image, shown below"},
	}
	calls := []fakemodel.Call{}
	for i, c := range cases {
		args, _ := json.Marshal(map[string]string{"path": c.path})
		calls = append(calls, fakemodel.Call{ID: fmt.Sprintf("m%d", i), Name: "read_media", Args: string(args)})
	}
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "s", Name: "tool_search", Args: `{"query":"read_media"}`}),
		fakemodel.Tools(calls...), fakemodel.Text("done"))
	c := imageCLI(t, srv, "seer", true)
	c.config(p.config + "\nmodel = \"seer\"\n[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n[models.seer]\nvision = true\n")
	if err := os.MkdirAll(filepath.Join(c.home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.home, ".ssh", "id_rsa.png"), canaryPNG, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(c.ws, "backup", ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.ws, "backup", ".ssh", "id_rsa.png"), canaryPNG, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(far, filepath.Join(c.ws, "link.png")); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run(append(append([]string{"exec"}, p.flags...), "look at the pictures")...)
	reqs := srv.Requests()
	if len(reqs) < 3 {
		t.Fatalf("exit %d, %d requests: %s\n%s", code, len(reqs), out, errOut)
	}
	results := toolResults(reqs[2])
	for i, tc := range cases {
		if res := results[fmt.Sprintf("m%d", i)]; !strings.Contains(res, tc.want) {
			t.Errorf("%s: read_media %s: %q, want %q", p.name, tc.path, res, tc.want)
		}
	}
	// The one image the model got is the workspace's (pngPart: 64×48),
	// and no refused file's bytes went anywhere, plain or encoded.
	pngPart(t, reqs[2])
	for _, r := range reqs {
		for _, u := range r.ImageURLs() {
			raw, _ := base64.StdEncoding.DecodeString(u[strings.Index(u, ",")+1:])
			if bytes.Contains(raw, []byte("media-canary-0000")) {
				t.Errorf("%s: a refused file went to the model as an image", p.name)
			}
		}
		if bytes.Contains(r.Raw, []byte("media-canary-0000")) {
			t.Errorf("%s: a refused file's bytes reached the provider", p.name)
		}
	}
}
