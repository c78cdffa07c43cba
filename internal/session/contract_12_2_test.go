package session

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/config"
)

// CONTRACT.md §12.2: an image past the folder's 100 MB is marked
// `not_kept` with the reason in its journal line; an image whose file is
// gone comes back as its description with `(not kept in the session: <why>)`,
// and the resume says so once, in the exact text.
func TestContractGoneImageIsDescribedAndReportedExactly(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	j := NewJournal(home, Options{noSync: true})
	info := testInfo("11111111-aaaa-4bbb-8ccc-0000000000c1")
	if err := os.MkdirAll(imageDir(Dir(home), info.ID), 0o700); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(imageDir(Dir(home), info.ID), "filler")
	if err := os.WriteFile(filler, make([]byte, MaxImageBytes-10), 0o600); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, j, info, imageMsg("too many", []byte("twenty bytes of data")))
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	gone := imageMsg("gone", []byte("small"))
	mustAppend(t, j, info, gone)
	j.Close()
	path := filepath.Join(Dir(home), info.ID+".jsonl")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(`"not_kept":"the session's images reached the 100.0 MB limit"`)) {
		t.Errorf("the journal does not mark the image past the cap not_kept:\n%s", raw)
	}
	if err := os.Remove(filepath.Join(imageDir(Dir(home), info.ID), gone.Content[1].Image.SHA256+".png")); err != nil {
		t.Fatal(err)
	}
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := l.Session.Messages[1]; len(m.Images()) != 0 || !strings.HasSuffix(m.Content[1].Text, "(not kept in the session: its file is gone)") {
		t.Errorf("the gone image: %+v", m.Content)
	}
	const want = "[session_images] 2 image(s) of this session were not kept; the conversation has their descriptions instead."
	if got := l.ImagesLine(); got != want {
		t.Errorf("notice %q\nwant   %q", got, want)
	}
	if n := strings.Count(strings.Join(l.Notices(), "\n"), "[session_images]"); n != 1 {
		t.Errorf("the images notice appears %d times in %q", n, l.Notices())
	}
}

// CONTRACT.md §12.2: pruning a session removes its images folder (deleting
// one is covered by TestImagesAreStoredOnceAndComeBack).
func TestContractPruneRemovesTheImagesFolder(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j := NewJournal(home, Options{noSync: true, Now: fixedClock(old)})
	info := testInfo("11111111-aaaa-4bbb-8ccc-0000000000c2")
	mustAppend(t, j, info, imageMsg("look", []byte("pixels")))
	j.Close()
	if files, _ := os.ReadDir(imageDir(Dir(home), info.ID)); len(files) != 1 {
		t.Fatalf("images folder %v", files)
	}
	deleted, err := Prune(home, config.Retention{MaxAgeDays: 1}, "", old.Add(30*24*time.Hour))
	if err != nil || len(deleted) != 1 || deleted[0] != info.ID {
		t.Fatalf("pruned %v, %v", deleted, err)
	}
	if _, err := os.Stat(imageDir(Dir(home), info.ID)); !os.IsNotExist(err) {
		t.Errorf("pruning the session left its images: %v", err)
	}
}
