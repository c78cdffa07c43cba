package media

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/images"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

func TestParamsAgree(t *testing.T) {
	t.Parallel()
	paramtest.Agree(t, paramtest.Case{Tool: New(), Samples: map[string]any{
		"crop": map[string]any{"x": 0, "y": 0, "width": 1, "height": 1}, "detail": "low"}})
}

func writePNG(t testing.TB, path string, img image.Image) {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func call(t *testing.T, tc *tools.Context, in string) (tools.Result, error) {
	t.Helper()
	c, err := New().Prepare(json.RawMessage(in))
	if err != nil {
		return tools.Result{}, err
	}
	return c.Run(context.Background(), tc)
}

// decoded is the image a result's one image block carries.
func decoded(t *testing.T, res tools.Result) (string, image.Image) {
	t.Helper()
	if len(res.Images) != 1 || res.Images[0].Type != provider.BlockImageURL {
		t.Fatalf("images %+v", res.Images)
	}
	head, data, _ := strings.Cut(res.Images[0].ImageURL, ";base64,")
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(head, "data:"), img
}

// CONTRACT.md §6.14: an 8000×8000 PNG comes back scaled to the detail's
// side and within the wire limit.
func TestReadMediaScalesAHugeImage(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	img := image.NewGray(image.Rect(0, 0, 8000, 8000))
	for i := range img.Pix {
		if i%8000 == i/8000 {
			img.Pix[i] = 255 // the diagonal
		}
	}
	writePNG(t, filepath.Join(ws, "huge.png"), img)
	res, err := call(t, &tools.Context{Workspace: ws}, `{"path":"huge.png"}`)
	if err != nil {
		t.Fatal(err)
	}
	mime, got := decoded(t, res)
	if mime != "image/png" || got.Bounds().Dx() != 2048 || got.Bounds().Dy() != 2048 {
		t.Errorf("%s %v, want a 2048×2048 PNG", mime, got.Bounds())
	}
	if n := res.Metadata["bytes"].(int); n > images.WireBytes {
		t.Errorf("%d bytes, over the wire limit", n)
	}
	want := "huge.png: 2048×2048 PNG image, shown below (detail auto); from the 8000×8000 PNG source, scaled down."
	if res.Content != want {
		t.Errorf("content %q, want %q", res.Content, want)
	}
}

func TestReadMediaCropAndDetail(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	src := image.NewNRGBA(image.Rect(0, 0, 3000, 1000))
	for i := range src.Pix {
		src.Pix[i] = 255
	}
	src.SetNRGBA(1000, 500, color.NRGBA{A: 255})
	writePNG(t, filepath.Join(ws, "wide.png"), src)
	res, err := call(t, &tools.Context{Workspace: ws}, `{"path":"wide.png","crop":{"x":1000,"y":500,"width":600,"height":300}}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, got := decoded(t, res); got.Bounds().Dx() != 600 || got.Bounds().Dy() != 300 {
		t.Errorf("crop gave %v", got.Bounds())
	} else if r, _, _, _ := got.At(0, 0).RGBA(); r != 0 {
		t.Errorf("the crop does not start at the black pixel")
	}
	if !strings.Contains(res.Content, "cropped to 600×300 at 1000,500") || strings.Contains(res.Content, "scaled") {
		t.Errorf("content %q", res.Content)
	}
	res, err = call(t, &tools.Context{Workspace: ws}, `{"path":"wide.png","detail":"low"}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, got := decoded(t, res); got.Bounds().Dx() != 1024 {
		t.Errorf("detail low gave %v", got.Bounds())
	}
}

func TestReadMediaRefusals(t *testing.T) {
	t.Parallel()
	ws, out := t.TempDir(), t.TempDir()
	writePNG(t, filepath.Join(ws, "ok.png"), image.NewGray(image.Rect(0, 0, 10, 10)))
	writePNG(t, filepath.Join(out, "far.png"), image.NewGray(image.Rect(0, 0, 10, 10)))
	if err := os.WriteFile(filepath.Join(ws, "notes.png"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	blind := &provider.NoVisionError{Model: "deepseek-v4-pro", Provider: "deepseek"}
	for _, tt := range []struct {
		name, in string
		tc       *tools.Context
		kind     tools.ErrorKind
		want     string
	}{
		{"a model that cannot see", `{"path":"ok.png"}`, &tools.Context{Workspace: ws, NoVision: blind},
			tools.KindNotAvailable, "read_media: deepseek-v4-pro cannot take images"},
		{"outside the workspace", `{"path":"` + filepath.Join(out, "far.png") + `"}`, &tools.Context{Workspace: ws},
			tools.KindPathEscape, ""},
		{"text named .png", `{"path":"notes.png"}`, &tools.Context{Workspace: ws},
			tools.KindExecutionFailed, "holds text, not an image"},
		{"crop outside", `{"path":"ok.png","crop":{"x":5,"y":5,"width":10,"height":1}}`, &tools.Context{Workspace: ws},
			tools.KindExecutionFailed, "outside the 10×10 image"},
		{"crop of zero width", `{"path":"ok.png","crop":{"x":0,"y":0,"width":0,"height":1}}`, &tools.Context{Workspace: ws},
			tools.KindInvalidInput, "width"},
		{"unknown detail", `{"path":"ok.png","detail":"max"}`, &tools.Context{Workspace: ws}, tools.KindInvalidInput, "detail"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t, tt.tc, tt.in)
			var te *tools.Error
			if !errors.As(err, &te) || te.Kind != tt.kind || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v (%T), want kind %v containing %q", err, err, tt.kind, tt.want)
			}
		})
	}
}
