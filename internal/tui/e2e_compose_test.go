package tui_test

import (
	"strings"
	"testing"
)

// A flag typed at the composer's wrap edge moves to the next row whole: no
// row of the pane holds half of it, and both halves stay (issue 14: it was
// split, or lost).
func TestE2EFlagAtTheComposerWrapEdge(t *testing.T) {
	t.Parallel()
	p := startTUI(t, nil)
	// 100 columns, 2 for the prompt: 97 cells of text leave one cell, too
	// few for the two-cell flag.
	text := strings.Repeat("a", 97) + "🇯🇵z"
	p.keys("-l", text)
	p.waitFor("aaaaaaaaaa", "z")
	screen := p.capture()
	var flagRows []string
	for _, row := range strings.Split(screen, "\n") {
		j, jp := strings.Count(row, "🇯"), strings.Count(row, "🇵")
		if j != jp {
			t.Fatalf("a row holds half a flag: %q\n%s", row, screen)
		}
		if j > 0 {
			flagRows = append(flagRows, row)
		}
	}
	if len(flagRows) != 1 || !strings.HasPrefix(strings.TrimSpace(flagRows[0]), "🇯🇵z") {
		t.Fatalf("the flag is not whole at the start of the second row: %q\n%s", flagRows, screen)
	}
}
