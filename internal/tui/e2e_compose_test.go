package tui_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
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

// A large paste shows in the transcript as the composer's chip, not as
// its 300 rows, and still reaches the model whole.
func TestE2EPastedTextShowsAsItsChipInTheTranscript(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "pasted row %03d\n", i)
	}
	srv := fakemodel.New(t, fakemodel.Text("read it"))
	p := startTUI(t, srv)
	f := filepath.Join(t.TempDir(), "paste.txt")
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p.keys("-l", "look at this: ")
	for _, args := range [][]string{{"load-buffer", "-b", "chip", f}, {"paste-buffer", "-p", "-d", "-b", "chip", "-t", p.session}} {
		if out, err := tmux(args...).CombinedOutput(); err != nil {
			t.Fatalf("tmux %s: %v\n%s", args[0], err, out)
		}
	}
	p.waitFor("[Pasted text #1: 300 lines")
	time.Sleep(150 * time.Millisecond)
	p.keys("Enter")
	p.waitFor("▎ look at this: [Pasted text #1: 300 lines", "● read it")
	if screen := p.capture(); strings.Contains(screen, "pasted row 150") {
		t.Errorf("the transcript shows the paste's rows:\n%s", screen)
	}
	if got := srv.Requests()[0].LastUserText(); !strings.Contains(got, "pasted row 000\n") || !strings.Contains(got, "pasted row 299\n") {
		t.Errorf("the model did not get the whole paste: %d bytes", len(got))
	}
}
