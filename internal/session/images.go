package session

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/atomicfile"
	"github.com/codewhale/codewhale/internal/provider"
)

// A session's images live beside its journal, in sessions/<id>.images/,
// one file per image named by the SHA-256 of its bytes: an image sent in
// every request of a long session is stored once, and a journal line holds
// its facts (provider.Image) with no bytes, so lines stay short
// (CONTRACT.md §12.2). The folder is capped; an image past the cap is
// marked NotKept and comes back from a resume as its description.

// MaxImageBytes is the most a session's images folder holds.
const MaxImageBytes = 100 << 20

// imageDir is the images folder of session id under dir.
func imageDir(dir, id string) string { return filepath.Join(dir, id+".images") }

// imageName is an image's file name: its digest and its format's extension.
func imageName(im *provider.Image) string {
	ext := strings.TrimPrefix(im.MIME, "image/")
	if ext == "jpeg" {
		ext = "jpg"
	}
	return im.SHA256 + "." + ext
}

// keepImages stores the bytes of m's data-URL images in the session's
// folder (once per digest, within MaxImageBytes) and returns m with those
// blocks holding the facts only. m must be the writer's own copy (the
// redactor's); the engine's blocks are not changed.
func (w *writer) keepImages(m provider.Message) (provider.Message, error) {
	for i, b := range m.Content {
		if b.Type != provider.BlockImageURL || b.Image == nil || !strings.HasPrefix(b.ImageURL, "data:") {
			continue
		}
		data, err := dataURLBytes(b.ImageURL)
		if err != nil {
			continue // not ours to store: it goes to the file as it came
		}
		im := *b.Image
		sum := sha256.Sum256(data)
		im.SHA256 = hex.EncodeToString(sum[:])
		if err := w.storeImage(&im, data); err != nil {
			return m, err
		}
		b.Image, b.ImageURL = &im, ""
		m.Content[i] = b
	}
	return m, nil
}

// storeImage writes data as im's file unless it is there, or marks im
// NotKept when the folder is full.
func (w *writer) storeImage(im *provider.Image, data []byte) error {
	dir := imageDir(w.dir, w.id)
	path := filepath.Join(dir, imageName(im))
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if w.imageBytes < 0 {
		w.imageBytes = dirSize(dir)
	}
	if w.imageBytes+int64(len(data)) > MaxImageBytes {
		im.NotKept = fmt.Sprintf("the session's images reached the %s limit", provider.FormatBytes(MaxImageBytes))
		return nil
	}
	if err := atomicfile.Write(path, data, 0o600, false); err != nil {
		return fmt.Errorf("saving an image of session %s: %w", w.id, err)
	}
	w.imageBytes += int64(len(data))
	return nil
}

func dirSize(dir string) int64 {
	var n int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// dataURLBytes decodes a base64 data: URL.
func dataURLBytes(u string) ([]byte, error) {
	head, data, ok := strings.Cut(u, ",")
	if !ok || !strings.HasSuffix(head, ";base64") {
		return nil, errors.New("not a base64 data URL")
	}
	return base64.StdEncoding.DecodeString(data)
}

// loadImages gives each stored image block of msgs its bytes back from the
// session's folder (checked against its digest). An image whose bytes are
// not there — not kept, deleted, changed — becomes its description with
// the reason; lost says how many did.
func loadImages(dir, id string, msgs []provider.Message) (lost int) {
	for _, m := range msgs {
		for j, b := range m.Content {
			if b.Type != provider.BlockImageURL || b.ImageURL != "" || b.Image == nil {
				continue
			}
			u, why := readImage(dir, id, b.Image)
			if why != "" {
				m.Content[j], lost = provider.TextBlock(b.Image.Describe()+" (not kept in the session: "+why+")"), lost+1
				continue
			}
			m.Content[j].ImageURL = u
		}
	}
	return lost
}

// readImage is the stored image of im as a data URL, or why it is not.
func readImage(dir, id string, im *provider.Image) (url, why string) {
	if im.NotKept != "" {
		return "", im.NotKept
	}
	data, err := os.ReadFile(filepath.Join(imageDir(dir, id), imageName(im)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", "its file is gone"
	case err != nil:
		return "", err.Error()
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != im.SHA256 {
		return "", "its file was changed"
	}
	return "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(data), ""
}

// ImagesLine is the notice of a resume that lost images, or "".
func (l *Loaded) ImagesLine() string {
	if l.ImagesLost == 0 {
		return ""
	}
	return fmt.Sprintf("[session_images] %d image(s) of this session were not kept; the conversation has their descriptions instead.",
		l.ImagesLost)
}
