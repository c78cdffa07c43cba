package provider

import (
	"fmt"
	"strings"
)

// Image is what a message keeps of an image besides its bytes (the block's
// ImageURL, a data: URL): enough to name it where the pixels do not go and
// to find its bytes again in the session folder (CONTRACT.md §12.2).
type Image struct {
	MIME   string `json:"mime"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Bytes  int    `json:"bytes"`  // size of the encoded image
	SHA256 string `json:"sha256"` // hex digest of the encoded image
	Label  string `json:"label,omitempty"`
	// NotKept, when set, says why the session file holds no bytes for it
	// (the session's image cap was reached); the image is then its
	// description after a resume.
	NotKept string `json:"not_kept,omitempty"`
}

// ImageBlock returns an image block: url is the image as a data: URL.
func ImageBlock(url string, im Image) Block {
	return Block{Type: BlockImageURL, ImageURL: url, Image: &im}
}

// FormatName is the image format's short name (PNG, JPEG, GIF, WebP).
func (im Image) FormatName() string {
	switch im.MIME {
	case "image/png":
		return "PNG"
	case "image/jpeg":
		return "JPEG"
	case "image/gif":
		return "GIF"
	case "image/webp":
		return "WebP"
	}
	return strings.TrimPrefix(im.MIME, "image/")
}

// Size is the image's dimensions, format and size as a chip shows them:
// `1280×720 PNG 212 KB`.
func (im Image) Size() string {
	return fmt.Sprintf("%d×%d %s %s", im.Width, im.Height, im.FormatName(), FormatBytes(int64(im.Bytes)))
}

// Describe is the one line that stands for the image where its pixels do
// not go: the summary compaction writes, a request to a model that cannot
// see, a resumed session that did not keep the bytes.
func (im Image) Describe() string {
	s := im.Size()
	if im.Label != "" {
		s = im.Label + ", " + s
	}
	return "[image: " + s + "]"
}

// FormatBytes is n as chips and receipts print it: 212 KB, 1.4 MB.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", (n+512)>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Images returns the message's image blocks in order.
func (m Message) Images() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == BlockImageURL {
			out = append(out, b)
		}
	}
	return out
}

// Description is the block's one-line stand-in: its Image's, or a generic
// one for an image block without facts.
func (b Block) Description() string {
	if b.Image != nil {
		return b.Image.Describe()
	}
	return "[image]"
}
