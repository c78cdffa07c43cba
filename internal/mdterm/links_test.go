package mdterm

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

const (
	open8  = "\x1b]8;;"
	close8 = "\x1b]8;;\x1b\\"
)

// With hyperlinks on, a link is its label wrapped in OSC 8 (closed on every
// line it reaches) and takes only the label's cells; the URL is not printed.
// Anything but http(s) and mailto stays "label (url)", and so does
// everything with hyperlinks off.
func TestLinksAsOSC8Hyperlinks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		links     bool
		want      []string // substrings of the joined output
		not       []string
	}{
		{"link", "See [the docs](https://example.com/docs) now.", true,
			[]string{open8 + "https://example.com/docs\x1b\\", close8, "now."}, []string{"(https://example.com/docs)"}},
		{"autolink", "Go to https://example.com/x today.", true,
			[]string{open8 + "https://example.com/x\x1b\\"}, nil},
		{"email", "Mail <dev@example.com>.", true, []string{open8 + "mailto:dev@example.com\x1b\\"}, nil},
		{"javascript stays text", "[click](javascript:alert(1))", true, []string{"click (javascript:alert(1))"}, []string{open8}},
		{"relative stays text", "[file](docs/a.md)", true, []string{"file (docs/a.md)"}, []string{open8}},
		{"off", "See [the docs](https://example.com/docs).", false, []string{"the docs (https://example.com/docs)"}, []string{open8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := New(termenv.ANSI256, true, true)
			r.SetHyperlinks(tt.links)
			out := strings.Join(r.Render(tt.src, 80), "\n")
			plain := ansi.Strip(out)
			for _, w := range tt.want {
				if !strings.Contains(out, w) && !strings.Contains(plain, w) {
					t.Errorf("missing %q in %q", w, out)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(out, n) || strings.Contains(plain, n) {
					t.Errorf("unexpected %q in %q", n, out)
				}
			}
			if strings.Count(out, open8) != 2*strings.Count(out, close8) {
				t.Errorf("unbalanced OSC 8 in %q", out)
			}
		})
	}
}

// A label wrapped over lines is a link on each line, each closed before the
// line ends, and lines measure by their visible text.
func TestWrappedLinkIsClosedOnEveryLine(t *testing.T) {
	t.Parallel()
	r := New(termenv.ANSI256, true, true)
	r.SetHyperlinks(true)
	lines := r.Render("[a long label that has to wrap over several lines](https://example.com/long)", 20)
	if len(lines) < 2 {
		t.Fatalf("lines = %q, want a wrap", lines)
	}
	for _, l := range lines {
		if !strings.Contains(l, open8+"https://example.com/long\x1b\\") || !strings.HasSuffix(ansi.Strip(l), strings.TrimSpace(ansi.Strip(l))) ||
			!strings.Contains(l, close8) || strings.LastIndex(l, close8) < strings.LastIndex(l, open8+"h") {
			t.Errorf("line %q is not one closed link", l)
		}
		if w := ansi.StringWidth(l); w > 20 {
			t.Errorf("line %q is %d cells wide", l, w)
		}
	}
}
