// Package images prepares the images a message carries to a model that can
// see (CONTRACT.md §6.14, §14.11): it recognises PNG, JPEG, GIF and WebP by
// their bytes, refuses what is too large, damaged or not an image with a
// sentence that says what to do, decodes within the pixel limit, crops,
// scales to the longest side asked for and re-encodes until the bytes fit
// the wire limit. It is the one image service: the TUI's chips, `exec
// --image`, stream-json input and the read_media tool all call Prepare.
//
// Decoding is pure Go (image/png, image/jpeg, image/gif,
// golang.org/x/image/webp); scaling is golang.org/x/image/draw. No cgo.
package images

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/image/webp"

	"github.com/codewhale/codewhale/internal/provider"
)

// Limits of every image codewhale reads (CONTRACT.md §6.14).
const (
	// MaxSourceBytes is the largest file read as an image.
	MaxSourceBytes = 20 << 20
	// MaxSide is the largest width or height decoded: 8192 px.
	MaxSide = 8192
	// WireBytes is the largest encoded image a request carries.
	WireBytes = 5 << 20
	// DefaultSide is the longest side an attachment is sent at: larger
	// images are scaled down to it.
	DefaultSide = 2048
)

// Format is an image format codewhale reads.
type Format struct {
	Name string // PNG, JPEG, GIF, WebP
	MIME string
}

var (
	formatPNG  = Format{"PNG", "image/png"}
	formatJPEG = Format{"JPEG", "image/jpeg"}
	formatGIF  = Format{"GIF", "image/gif"}
	formatWebP = Format{"WebP", "image/webp"}
)

// Sniff names the format of data by its first bytes; ok is false for
// anything else. The name of a file never decides: a ".png" holding text
// is not a PNG.
func Sniff(data []byte) (f Format, ok bool) {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return formatPNG, true
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return formatJPEG, true
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return formatGIF, true
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return formatWebP, true
	}
	return Format{}, false
}

// IsImageName reports a file name with an image extension codewhale reads
// (.png .jpg .jpeg .gif .webp, any case).
func IsImageName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		return true
	}
	return false
}

// decoders are the decoders by format name, each used only for bytes its
// format was sniffed in.
var decoders = map[string]struct {
	decode func(io.Reader) (image.Image, error)
	config func(io.Reader) (image.Config, error)
}{
	"PNG":  {png.Decode, png.DecodeConfig},
	"JPEG": {jpeg.Decode, jpeg.DecodeConfig},
	"GIF":  {gif.Decode, gif.DecodeConfig},
	"WebP": {webp.Decode, webp.DecodeConfig},
}

// Error is a refusal of an image: nothing was attached or sent. Its text
// says what was wrong and what to do.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

func refuse(format string, a ...any) error { return &Error{msg: fmt.Sprintf(format, a...)} }

// check sniffs data and reads its header: the format and the size, within
// the limits, before anything is decoded.
func check(data []byte) (Format, image.Config, error) {
	if len(data) == 0 {
		return Format{}, image.Config{}, refuse("the file is empty (0 bytes), not an image")
	}
	if len(data) > MaxSourceBytes {
		return Format{}, image.Config{}, tooLarge(int64(len(data)))
	}
	f, ok := Sniff(data)
	if !ok {
		return Format{}, image.Config{}, notAnImage(data)
	}
	cfg, err := decoders[f.Name].config(bytes.NewReader(data))
	if err != nil {
		return f, cfg, damaged(f, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return f, cfg, refuse("the %s header gives a size of %d×%d, which is not an image", f.Name, cfg.Width, cfg.Height)
	}
	if cfg.Width > MaxSide || cfg.Height > MaxSide {
		return f, cfg, refuse("the image is %d×%d pixels, over the %d-pixel limit per side; scale or crop it first",
			cfg.Width, cfg.Height, MaxSide)
	}
	return f, cfg, nil
}

func tooLarge(n int64) error {
	return refuse("the file is %s, over the %s limit for an image; scale it down or crop it first",
		provider.FormatBytes(n), provider.FormatBytes(MaxSourceBytes))
}

// notAnImage explains bytes that are no image format codewhale reads.
func notAnImage(data []byte) error {
	head := data[:min(len(data), 512)]
	if utf8.Valid(head) && !bytes.ContainsRune(head, 0) {
		return refuse("the file holds text, not an image (its bytes are not PNG, JPEG, GIF or WebP)")
	}
	return refuse("the file is not a PNG, JPEG, GIF or WebP image; convert it to one of those")
}

func damaged(f Format, err error) error {
	why := err.Error()
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || strings.Contains(why, "not enough pixel data") {
		why = "it ends early (truncated)"
	}
	return refuse("the %s data is damaged or incomplete: %s", f.Name, why)
}
