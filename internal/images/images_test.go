package images

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two WebP files of one pixel (lossless and lossy), the smallest valid
// ones, as browsers' feature tests carry them.
const (
	webpLossless = "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=="
	webpLossy    = "UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA"
)

// pattern is a w×h image with detail in it (so scaling and encoding do
// real work), opaque unless alpha is set.
func pattern(w, h int, alpha bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			a := uint8(255)
			if alpha && (x+y)%7 == 0 {
				a = 40
			}
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 7), uint8(y * 5), uint8((x ^ y) * 3), a})
		}
	}
	return img
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func b64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeURL decodes a data URL back into its MIME type and image.
func decodeURL(t *testing.T, u string) (string, image.Image) {
	t.Helper()
	head, data, ok := strings.Cut(u, ";base64,")
	if !ok || !strings.HasPrefix(head, "data:") {
		t.Fatalf("not a base64 data URL: %.40q", u)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the data URL's bytes do not decode: %v", err)
	}
	return strings.TrimPrefix(head, "data:"), img
}

func TestPrepareFormats(t *testing.T) {
	t.Parallel()
	small := encodePNG(t, pattern(64, 32, true))
	var g bytes.Buffer
	pal := image.NewPaletted(image.Rect(0, 0, 40, 20), color.Palette{color.Black, color.White})
	if err := gif.Encode(&g, pal, nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		data      []byte
		mime      string
		w, h      int
		unchanged bool
	}{
		{"small PNG is sent as it is", small, "image/png", 64, 32, true},
		{"small JPEG is sent as it is", encodeJPEG(t, pattern(50, 40, false)), "image/jpeg", 50, 40, true},
		{"a large JPEG is scaled and stays JPEG", encodeJPEG(t, pattern(3000, 1500, false)), "image/jpeg", 2048, 1024, false},
		{"a large PNG is scaled and stays PNG", encodePNG(t, pattern(1000, 4000, true)), "image/png", 512, 2048, false},
		{"GIF becomes PNG", g.Bytes(), "image/png", 40, 20, false},
		{"lossless WebP becomes PNG", b64(t, webpLossless), "image/png", 1, 1, false},
		{"lossy WebP becomes PNG", b64(t, webpLossy), "image/png", 1, 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Prepare(context.Background(), tt.data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			mime, img := decodeURL(t, p.DataURL())
			if mime != tt.mime || p.Format.MIME != tt.mime {
				t.Errorf("MIME %s (format %s), want %s", mime, p.Format.MIME, tt.mime)
			}
			if b := img.Bounds(); b.Dx() != tt.w || b.Dy() != tt.h || p.Width != tt.w || p.Height != tt.h {
				t.Errorf("decoded %v, reported %d×%d, want %d×%d", b, p.Width, p.Height, tt.w, tt.h)
			}
			if got := bytes.Equal(p.Data, tt.data); got != tt.unchanged {
				t.Errorf("bytes unchanged = %v, want %v", got, tt.unchanged)
			}
			if p.SourceBytes != len(tt.data) || len(p.SHA256) != 64 {
				t.Errorf("source bytes %d, sha %q", p.SourceBytes, p.SHA256)
			}
		})
	}
}

func TestPrepareRefusesWithAClearReason(t *testing.T) {
	t.Parallel()
	good := encodePNG(t, pattern(300, 200, false))
	wide := encodePNG(t, image.NewGray(image.Rect(0, 0, MaxSide+1, 1)))
	for _, tt := range []struct {
		name, want string
		data       []byte
		o          Options
	}{
		{"empty", "empty (0 bytes)", nil, Options{}},
		{"over 20 MiB", "over the 20.0 MB limit", make([]byte, MaxSourceBytes+1), Options{}},
		{"truncated PNG", "PNG data is damaged or incomplete: it ends early (truncated)", good[:len(good)/2], Options{}},
		{"text named .png", "holds text, not an image", []byte("just some notes\n"), Options{}},
		{"binary that is no image", "not a PNG, JPEG, GIF or WebP", []byte{0, 1, 2, 3, 0xfe, 0xff, 0, 9}, Options{}},
		{"wider than 8192", "over the 8192-pixel limit per side", wide, Options{}},
		{"crop outside", "outside the 300×200 image", good, Options{Crop: image.Rect(250, 0, 350, 10)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Prepare(context.Background(), tt.data, tt.o)
			var ie *Error
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want an *Error containing %q", err, tt.want)
			}
		})
	}
}

func TestPrepareCropsThenScales(t *testing.T) {
	t.Parallel()
	src := pattern(800, 600, false)
	data := encodePNG(t, src)
	p, err := Prepare(context.Background(), data, Options{Crop: image.Rect(100, 50, 500, 250)})
	if err != nil {
		t.Fatal(err)
	}
	_, img := decodeURL(t, p.DataURL())
	if img.Bounds().Dx() != 400 || img.Bounds().Dy() != 200 || !p.Cropped {
		t.Fatalf("crop gave %v (cropped=%v), want 400×200", img.Bounds(), p.Cropped)
	}
	if got, want := color.NRGBAModel.Convert(img.At(0, 0)), src.At(100, 50); got != want {
		t.Errorf("the crop's first pixel is %v, the source's at (100,50) is %v", got, want)
	}
	p, err = Prepare(context.Background(), data, Options{Crop: image.Rect(0, 0, 800, 400), MaxSide: 200})
	if err != nil {
		t.Fatal(err)
	}
	if p.Width != 200 || p.Height != 100 {
		t.Errorf("crop then scale gave %d×%d, want 200×100", p.Width, p.Height)
	}
}

// An 8000×8000 image (inside the per-side limit) comes back within the
// wire limits at the side asked for.
func TestPrepareHugeImage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("decodes 64 megapixels") // not a missing dependency: the work is long, not absent
	}
	img := image.NewGray(image.Rect(0, 0, 8000, 8000))
	for y := 0; y < 8000; y += 97 {
		for x := 0; x < 8000; x++ {
			img.Pix[y*img.Stride+x] = 255
		}
	}
	p, err := Prepare(context.Background(), encodePNG(t, img), Options{MaxSide: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if p.Width != 4096 || p.Height != 4096 || len(p.Data) > WireBytes {
		t.Errorf("got %d×%d, %d bytes; want 4096×4096 within %d bytes", p.Width, p.Height, len(p.Data), WireBytes)
	}
}

func TestPrepareHonoursCancellation(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	decodeSlot <- struct{}{} // a decode is running elsewhere
	defer func() { <-decodeSlot }()
	if _, err := Prepare(ctx, encodePNG(t, pattern(10, 10, false)), Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestFileKeepsTheBoundary(t *testing.T) {
	t.Parallel()
	ws, outside := t.TempDir(), t.TempDir()
	write := func(dir, name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	png := encodePNG(t, pattern(20, 10, false))
	write(ws, "shots/a.png", png)
	far := write(outside, "b.png", png)
	if err := os.Symlink(far, filepath.Join(ws, "link.png")); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(ws, "big.png")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(30 << 20); err != nil { // sparse: 30 MiB read as zeros
		t.Fatal(err)
	}
	f.Close()
	if p, err := File(context.Background(), ws, nil, "shots/a.png", Options{}); err != nil || p.Width != 20 {
		t.Fatalf("a workspace image: %v, %+v", err, p)
	}
	if _, err := File(context.Background(), ws, []string{outside}, far, Options{}); err != nil {
		t.Errorf("a trusted root's image: %v", err)
	}
	// The secret guard holds for the person's paths too: a trusted root
	// does not open a credential folder (refused before it is opened).
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(home, ".ssh", "shot.png")
	if _, err := File(context.Background(), ws, []string{filepath.Dir(key)}, key, Options{}); err == nil ||
		!strings.Contains(err.Error(), key+" is SSH keys") {
		t.Errorf("a file in ~/.ssh: err = %v, want the secret guard's refusal", err)
	}
	for _, tt := range []struct{ path, want string }{
		{far, "is outside the workspace"},
		{"link.png", "is outside the workspace"},
		{"big.png", "30.0 MB, over the 20.0 MB limit"},
		{"missing.png", "no such file"},
		{"shots", "not a regular file"},
	} {
		_, err := File(context.Background(), ws, nil, tt.path, Options{})
		var ie *Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want an *Error containing %q", tt.path, err, tt.want)
		}
	}
}
