package handles

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// preview joins only the words it can show; what it shows is what joining
// every word and then cutting gives, on real text (GOROOT's doc pages) and
// on the edges: multi-byte runes and invalid bytes at the cut, runs of
// Unicode spaces, text just under, at and over the bound.
func TestPreviewMatchesJoiningEverything(t *testing.T) {
	t.Parallel()
	joinAll := func(s string) string {
		s = strings.Join(strings.Fields(s), " ")
		if r := []rune(s); len(r) > PreviewRunes {
			return string(r[:PreviewRunes-1]) + "…"
		}
		return s
	}
	cases := []string{"", "   ", "a", " a  b\tc\n", strings.Repeat("é", 159), strings.Repeat("é", 160),
		strings.Repeat("é", 161), strings.Repeat("ab ", 60), strings.Repeat("x", 158) + " \xff\xfe y z",
		strings.Repeat("x", 159) + "\u00a0\u2003日本語 語", strings.Repeat("w ", 79) + "\xe6\x97", "\xe6\x97 " + strings.Repeat("q", 200)}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		e2e.Missing(t, "go env GOROOT: "+err.Error())
	}
	for _, name := range []string{"doc/go_spec.html", "doc/go_mem.html", "doc/asm.html"} {
		b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), name))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		step := 1
		if len(s) > 10_000 {
			step = 41 // every start, not only 0, lands some cuts inside a word or rune
		}
		for i := 0; i < len(s) && i < 400; i += step {
			if got, want := preview(s[i:]), joinAll(s[i:]); got != want {
				t.Fatalf("preview(%q…)\n got %q\nwant %q", s[i:min(len(s), i+40)], got, want)
			}
		}
	}
}
