package images

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"

	"github.com/codewhale/codewhale/internal/provider"
)

// Options say how an image is prepared.
type Options struct {
	// MaxSide is the longest side sent, in pixels: a larger image (or
	// crop) is scaled down to it. 0 is DefaultSide; it is capped at
	// MaxSide.
	MaxSide int
	// Crop, when not empty, is the region of the source (in its pixels,
	// origin top-left) that is kept. It must lie inside the image.
	Crop image.Rectangle
}

// Prepared is an image ready for a request: the bytes to send and what
// they came from.
type Prepared struct {
	Data          []byte // the bytes a request carries (PNG or JPEG)
	Format        Format // of Data
	Width, Height int    // of Data
	SHA256        string // hex digest of Data
	Source        Format
	SourceWidth   int
	SourceHeight  int
	SourceBytes   int
	Cropped       bool
	Resized       bool // scaled, or re-encoded to fit WireBytes
}

// DataURL is the image as a data: URL, the form an image_url part takes.
func (p *Prepared) DataURL() string {
	return "data:" + p.Format.MIME + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
}

// decodeSlot lets one decode run at a time in the process: an 8192×8192
// image takes 256 MB decoded, and the TUI, a tool call and a sub-agent
// may each prepare one at once. It is the only package state, and holds
// nothing until a decode starts.
var decodeSlot = make(chan struct{}, 1)

// Prepare checks data (CONTRACT.md §6.14: at most MaxSourceBytes, PNG,
// JPEG, GIF or WebP by its bytes, at most MaxSide per side, decodable to
// the end), crops and scales it to o and encodes it within WireBytes. A
// PNG or JPEG that needs no change is sent as it is; GIF (its first frame)
// and WebP are re-encoded as PNG, the format every vision model reads. A
// refusal is an *Error. Prepare is CPU work (tens of milliseconds for a
// screenshot, about a second for 8000×8000): hosts call it off their UI
// goroutine.
func Prepare(ctx context.Context, data []byte, o Options) (*Prepared, error) {
	f, cfg, err := check(data)
	if err != nil {
		return nil, err
	}
	crop := o.Crop
	full := image.Rect(0, 0, cfg.Width, cfg.Height)
	if !crop.Empty() && !crop.In(full) {
		return nil, refuse("the crop %d,%d %d×%d is outside the %d×%d image; keep x+width ≤ %d and y+height ≤ %d",
			crop.Min.X, crop.Min.Y, crop.Dx(), crop.Dy(), cfg.Width, cfg.Height, cfg.Width, cfg.Height)
	}
	select {
	case decodeSlot <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-decodeSlot }()
	img, err := decoders[f.Name].decode(bytes.NewReader(data))
	if err != nil {
		return nil, damaged(f, err)
	}
	p := &Prepared{Source: f, SourceWidth: cfg.Width, SourceHeight: cfg.Height, SourceBytes: len(data)}
	if !crop.Empty() {
		img, p.Cropped = cropped(img, crop), true
	}
	side := o.MaxSide
	if side <= 0 {
		side = DefaultSide
	}
	side = min(side, MaxSide)
	b := img.Bounds()
	keep := !p.Cropped && max(b.Dx(), b.Dy()) <= side && len(data) <= WireBytes && (f == formatPNG || f == formatJPEG)
	if keep {
		p.Data, p.Format, p.Width, p.Height = data, f, b.Dx(), b.Dy()
	} else if err := p.encode(ctx, img, side); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(p.Data)
	p.SHA256 = hex.EncodeToString(sum[:])
	return p, nil
}

// cropped is the region r of img, with its origin moved to (0,0).
func cropped(img image.Image, r image.Rectangle) image.Image {
	r = r.Add(img.Bounds().Min)
	dst := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(dst, dst.Bounds(), img, r.Min, draw.Src)
	return dst
}

// encode scales img to fit side and encodes it, shrinking by a quarter
// until the bytes fit WireBytes: PNG for a PNG, GIF or WebP source (text
// and diagrams stay sharp), JPEG for a JPEG, and JPEG for an opaque image
// whose PNG is too large.
func (p *Prepared) encode(ctx context.Context, img image.Image, side int) error {
	b := img.Bounds()
	w, h := fit(b.Dx(), b.Dy(), side)
	opaque := isOpaque(img)
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		scaled := img
		if w != b.Dx() || h != b.Dy() {
			scaled = scale(img, w, h)
		}
		data, f, err := encodeAs(scaled, p.Source, opaque)
		if err != nil {
			return fmt.Errorf("encoding the image: %w", err)
		}
		if len(data) <= WireBytes {
			p.Data, p.Format, p.Width, p.Height, p.Resized = data, f, w, h, true
			return nil
		}
		if attempt == 6 || min(w, h) < 64 {
			return refuse("the image does not fit the %s request limit even at %d×%d; crop it first",
				provider.FormatBytes(WireBytes), w, h)
		}
		w, h = max(w*3/4, 1), max(h*3/4, 1)
	}
}

// fit is (w, h) scaled down so the longest side is at most side, keeping
// the aspect ratio; it never scales up.
func fit(w, h, side int) (int, int) {
	if w <= side && h <= side {
		return w, h
	}
	if w >= h {
		return side, max(h*side/w, 1)
	}
	return max(w*side/h, 1), side
}

// scale resamples img to w×h with Catmull-Rom, which keeps small text
// legible when a screenshot is halved. A reduction of more than half goes
// through bilinear to twice the size first: Catmull-Rom's cost grows with
// the ratio, bilinear's does not, and at a ratio of 2 or less bilinear
// drops no detail the second pass keeps. The destination is *image.RGBA,
// which x/image/draw has fast paths for.
func scale(img image.Image, w, h int) image.Image {
	b := img.Bounds()
	if b.Dx() > 4*w && b.Dy() > 4*h {
		mid := image.NewRGBA(image.Rect(0, 0, 2*w, 2*h))
		draw.ApproxBiLinear.Scale(mid, mid.Bounds(), img, b, draw.Src, nil)
		img = mid
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
	return dst
}

func isOpaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	return false
}

// encodeAs encodes img as JPEG for a JPEG source, else as PNG; an opaque
// PNG over the wire limit is tried as JPEG before the caller shrinks it.
func encodeAs(img image.Image, source Format, opaque bool) ([]byte, Format, error) {
	var buf bytes.Buffer
	if source == formatJPEG {
		err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85})
		return buf.Bytes(), formatJPEG, err
	}
	enc := png.Encoder{CompressionLevel: png.DefaultCompression}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, Format{}, err
	}
	if buf.Len() <= WireBytes || !opaque {
		return buf.Bytes(), formatPNG, nil
	}
	var j bytes.Buffer
	err := jpeg.Encode(&j, img, &jpeg.Options{Quality: 85})
	return j.Bytes(), formatJPEG, err
}

// Block is the image as a message block, label naming where it came from
// ("shot.png", "clipboard").
func (p *Prepared) Block(label string) provider.Block {
	return provider.ImageBlock(p.DataURL(), provider.Image{MIME: p.Format.MIME, Width: p.Width, Height: p.Height,
		Bytes: len(p.Data), SHA256: p.SHA256, Label: label})
}
