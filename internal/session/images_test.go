package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/provider"
)

// imageMsg is a user message with one image of data (PNG bytes as far as
// the session is concerned: it stores what it is given).
func imageMsg(text string, data []byte) provider.Message {
	sum := sha256.Sum256(data)
	m := userTurn(text)
	img := provider.ImageBlock("data:image/png;base64,"+base64.StdEncoding.EncodeToString(data),
		provider.Image{MIME: "image/png", Width: 4, Height: 2, Bytes: len(data), SHA256: hex.EncodeToString(sum[:]), Label: "shot.png"})
	m.Content = append(m.Content[:1], img, m.Content[1])
	return m
}

// CONTRACT.md §12.2: an image is stored once, by its digest, beside the
// journal; the journal line holds no bytes; a resume gets the image back.
func TestImagesAreStoredOnceAndComeBack(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	j := NewJournal(home, Options{})
	info := testInfo("11111111-aaaa-4bbb-8ccc-0000000000a1")
	data := bytes.Repeat([]byte("pixels"), 4000)
	first, second := imageMsg("look", data), imageMsg("again", data)
	mustAppend(t, j, info, first, assistant("a cat"), second)
	j.Close()
	if first.Content[1].ImageURL == "" {
		t.Fatal("storing changed the engine's message")
	}
	path := filepath.Join(Dir(home), info.ID+".jsonl")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(base64.StdEncoding.EncodeToString(data)[:64])) {
		t.Error("the journal holds the image's bytes")
	}
	files, _ := os.ReadDir(imageDir(Dir(home), info.ID))
	if len(files) != 1 || files[0].Name() != first.Content[1].Image.SHA256+".png" {
		t.Fatalf("images folder %v", files)
	}
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	got := l.Session.Messages[2].Images()
	if len(got) != 1 || got[0].ImageURL != first.Content[1].ImageURL || got[0].Image.Label != "shot.png" || l.ImagesLost != 0 {
		t.Fatalf("resumed image %+v (lost %d)", got, l.ImagesLost)
	}
	var out strings.Builder
	if err := Export(&out, l, ExportMarkdown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "![image: shot.png, 4×2 PNG 23 KB]("+first.Content[1].ImageURL+")") {
		t.Errorf("the Markdown export lost the image:\n%.600s", out.String())
	}
	out.Reset()
	if err := Export(&out, l, ExportJSON); err != nil || !strings.Contains(out.String(), first.Content[1].ImageURL) {
		t.Errorf("the JSON export lost the image (%v)", err)
	}
	if err := Delete(home, info.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(imageDir(Dir(home), info.ID)); !os.IsNotExist(err) {
		t.Errorf("deleting the session left its images: %v", err)
	}
}

// An image past the cap, or whose file is gone or changed, comes back as
// its description, and the resume says so.
func TestLostImagesBecomeTheirDescriptions(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	j := NewJournal(home, Options{})
	info := testInfo("11111111-aaaa-4bbb-8ccc-0000000000a2")
	if err := os.MkdirAll(imageDir(Dir(home), info.ID), 0o700); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(imageDir(Dir(home), info.ID), "filler")
	if err := os.WriteFile(filler, make([]byte, MaxImageBytes-10), 0o600); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, j, info, imageMsg("too many", []byte("twenty bytes of data")))
	os.Remove(filler)
	kept := imageMsg("kept", []byte("small"))
	mustAppend(t, j, info, kept)
	j.Close()
	if err := os.WriteFile(filepath.Join(imageDir(Dir(home), info.ID), kept.Content[1].Image.SHA256+".png"), []byte("other"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Load(filepath.Join(Dir(home), info.ID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i, why := range []string{"the session's images reached the 100.0 MB limit", "its file was changed"} {
		m := l.Session.Messages[i]
		if len(m.Images()) != 0 || !strings.Contains(m.Content[1].Text, "[image: shot.png, 4×2 PNG") ||
			!strings.Contains(m.Content[1].Text, "(not kept in the session: "+why+")") {
			t.Errorf("message %d: %+v", i, m.Content)
		}
	}
	if l.ImagesLost != 2 || !strings.Contains(strings.Join(l.Notices(), "\n"), "[session_images] 2 image(s)") {
		t.Errorf("lost %d, notices %q", l.ImagesLost, l.Notices())
	}
}
