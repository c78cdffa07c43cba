package provider

import (
	"fmt"
	"slices"
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

// NoVisionError refuses images for a model that cannot take them, before
// anything is sent (CONTRACT.md §10.9, §14.11).
type NoVisionError struct {
	Model, Provider string
	Others          []string // models on the provider that can
}

func (e *NoVisionError) Error() string {
	s := fmt.Sprintf("%s cannot take images (the model table gives it no vision), so nothing was sent. ", e.Model)
	if len(e.Others) > 0 {
		s += fmt.Sprintf("Models on %s that can: %s. Switch with /model (or --model)", e.Provider, strings.Join(e.Others, ", "))
	} else {
		s += fmt.Sprintf("No model on %s is known to take images: /provider switches to one that has them", e.Provider)
	}
	return s + fmt.Sprintf(", or set [models.%q] vision = true if it can.", e.Model)
}

// VisionModels are the models on the route the table says take images:
// built-in rows, the server's cached list and [models.<id>] overrides,
// sorted. It reads the cached list only; it never asks the server.
func (t *ModelTable) VisionModels(firstParty bool) []string {
	ids := map[string]bool{}
	for _, m := range models {
		ids[m.ID] = true
	}
	if t != nil {
		t.liveRow("") // load the cached list once
		for id := range t.live {
			ids[id] = true
		}
		for id := range t.Overrides {
			ids[id] = true
		}
	}
	var out []string
	for id := range ids {
		if info, _ := t.Resolve(id, firstParty); info.Vision {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// CheckVision is nil when model takes images, else a *NoVisionError
// naming the models on provider that can.
func (t *ModelTable) CheckVision(model, provider string, firstParty bool) error {
	if info, _ := t.Resolve(model, firstParty); info.Vision {
		return nil
	}
	others := slices.DeleteFunc(t.VisionModels(firstParty), func(id string) bool { return id == model })
	return &NoVisionError{Model: model, Provider: provider, Others: others}
}

// CheckVision is the route's answer for its model: nil when it takes
// images.
func (c *Client) CheckVision() error {
	return c.cfg.Models.CheckVision(c.cfg.Model, c.cfg.ProviderID, IsFirstParty(c.cfg.BaseURL))
}
