package mdterm

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

// GFM footnotes are drawn, not shown raw: a reference is its number in
// brackets, and the notes come at the end, each after its number.
func TestFootnotesAreDrawn(t *testing.T) {
	r := New(termenv.Ascii, false, true)
	got := strings.Join(r.Render("The cache is warm[^c] at start.\n\n[^c]: After the first request.\n", 60), "\n")
	for _, want := range []string{"The cache is warm[1] at start.", "[1] After the first request."} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "[^c]") {
		t.Errorf("footnote markup shown raw:\n%s", got)
	}
}
