package tui

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite README.md's key table from the keymap")

const (
	keysBegin = "<!-- keys:begin (generated from internal/tui/keymap.go; go test ./internal/tui -run TestREADMEKeyTable -update-readme) -->\n"
	keysEnd   = "<!-- keys:end -->"
)

// The README's key table is the keymap, the one the F1 overlay shows (CONTRACT.md §14.6).
// README.md "TUI keys": the key table is the keymap, the one the F1 overlay shows
func TestREADMEKeyTable(t *testing.T) {
	path := filepath.Join("..", "..", "README.md")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	a, b := strings.Index(readme, keysBegin), strings.Index(readme, keysEnd)
	if a < 0 || b < a {
		t.Fatalf("README.md lacks the generated key table markers %q … %q", keysBegin, keysEnd)
	}
	want := readme[:a+len(keysBegin)] + keyTable() + readme[b:]
	if *updateReadme {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if readme != want {
		t.Errorf("README.md's key table differs from the keymap; run go test ./internal/tui -run TestREADMEKeyTable -update-readme\nwant:\n%s", keyTable())
	}
}

// The F1 overlay lists every keymap row (CONTRACT.md §14.6).
func TestHelpOverlayShowsTheKeymap(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 200, 200)
	d.key("f1")
	for _, b := range keymap {
		d.mustShow(b.keys + "  ")
	}
}
