package media

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools"
)

// CONTRACT.md §6.14: read_media is deferred, read-only, sandboxable, parallel-safe, approval Auto, with a closed
// schema whose path is required.
func TestContractReadMediaSpec(t *testing.T) {
	t.Parallel()
	tool := New()
	if !tool.DeferLoading() || !tool.ReadOnly || !tool.Parallel || tool.Approve != tools.Auto ||
		!slices.Equal(tool.Capabilities(), []tools.Capability{tools.CapReadOnly, tools.CapSandboxable}) {
		t.Fatalf("spec %+v", tool.Spec)
	}
	s := tool.InputSchema()
	if s["additionalProperties"] != false || !slices.Contains(s["required"].([]any), any("path")) {
		t.Errorf("schema %v", s)
	}
}

// CONTRACT.md §6.14: a PNG that needs no change is sent byte for byte, a GIF becomes PNG, an opaque PNG too large
// for the wire becomes JPEG, and detail high sends up to 4096 px.
func TestContractReadMediaEncodings(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	tc := &tools.Context{Workspace: ws}
	writePNG(t, filepath.Join(ws, "small.png"), image.NewGray(image.Rect(0, 0, 40, 30)))
	small, _ := os.ReadFile(filepath.Join(ws, "small.png"))
	res, err := call(t, tc, `{"path":"small.png"}`)
	if err != nil || res.Content != "small.png: 40×30 PNG image, shown below (detail auto)." ||
		res.Images[0].ImageURL != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(small) {
		t.Errorf("an unchanged PNG: %v %q", err, res.Content)
	}

	var g bytes.Buffer
	pal := image.NewPaletted(image.Rect(0, 0, 8, 8), color.Palette{color.Black, color.White})
	if err := gif.Encode(&g, pal, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.gif"), g.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := call(t, tc, `{"path":"a.gif"}`); err != nil || !strings.HasPrefix(res.Content, "a.gif: 8×8 PNG image") {
		t.Errorf("a GIF: %v %+v", err, res.Content)
	} else if mime, _ := decoded(t, res); mime != "image/png" {
		t.Errorf("a GIF was sent as %s", mime)
	}

	// Opaque noise at 2400×2400: its PNG at 2048 px is far over 5 MiB.
	noise := image.NewRGBA(image.Rect(0, 0, 2400, 2400))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range noise.Pix {
		noise.Pix[i] = byte(r.Uint32())
		if i%4 == 3 {
			noise.Pix[i] = 255
		}
	}
	writePNG(t, filepath.Join(ws, "noise.png"), noise)
	res, err = call(t, tc, `{"path":"noise.png","detail":"high"}`)
	if err != nil {
		t.Fatal(err)
	}
	if mime, img := decoded(t, res); mime != "image/jpeg" || img.Bounds().Dx() != 2400 {
		t.Errorf("opaque noise with detail high: %s %v, want a 2400×2400 JPEG", mime, img.Bounds())
	}
}

// CONTRACT.md §6.14: the limits — a file over 20 MiB, a side over 8192 px, a truncated file, a secret, a link out
// of the workspace — are refused, each naming the file and why; a model without vision gets NotAvailable before
// anything is read (the file need not exist).
func TestContractReadMediaLimits(t *testing.T) {
	t.Parallel()
	ws, out := t.TempDir(), t.TempDir()
	writePNG(t, filepath.Join(ws, "wide.png"), image.NewGray(image.Rect(0, 0, 8193, 1)))
	writePNG(t, filepath.Join(out, "far.png"), image.NewGray(image.Rect(0, 0, 4, 4)))
	var full bytes.Buffer
	writePNG(t, filepath.Join(ws, "ok.png"), image.NewGray(image.Rect(0, 0, 64, 64)))
	data, _ := os.ReadFile(filepath.Join(ws, "ok.png"))
	full.Write(data[:len(data)-20])
	big := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 20<<20)...)
	for name, b := range map[string][]byte{"cut.png": full.Bytes(), "big.png": big} {
		if err := os.WriteFile(filepath.Join(ws, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(ws, ".ssh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".ssh", "id.png"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "far.png"), filepath.Join(ws, "link.png")); err != nil {
		t.Fatal(err)
	}
	blind := &provider.NoVisionError{Model: "deepseek-v4-pro", Provider: "deepseek"}
	for _, c := range []struct {
		path string
		tc   *tools.Context
		kind tools.ErrorKind
		want string
	}{
		{"big.png", nil, tools.KindExecutionFailed, "read_media: " + filepath.Join(ws, "big.png") + ": the file is 20.0 MB, over the 20.0 MB limit"},
		{"wide.png", nil, tools.KindExecutionFailed, "over the 8192-pixel limit per side"},
		{"cut.png", nil, tools.KindExecutionFailed, "read_media: " + filepath.Join(ws, "cut.png") + ": the PNG data is damaged or incomplete"},
		{".ssh/id.png", nil, tools.KindExecutionFailed, "read_media: " + filepath.Join(ws, ".ssh", "id.png") + " is "},
		{"link.png", nil, tools.KindPathEscape, ""},
		{"missing.png", &tools.Context{Workspace: ws, NoVision: blind}, tools.KindNotAvailable, "read_media: " + blind.Error()},
	} {
		tc := c.tc
		if tc == nil {
			tc = &tools.Context{Workspace: ws}
		}
		_, err := call(t, tc, `{"path":"`+c.path+`"}`)
		var te *tools.Error
		if !errors.As(err, &te) || te.Kind != c.kind || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want kind %v containing %q", c.path, err, c.kind, c.want)
		}
	}
}
