package mdterm

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

func TestSplitStableCutsAtTheLastBlankLineOutsideAFence(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, head, tail string }{
		{"one line", "", "one line"},
		{"para\n\nnext", "para\n\n", "next"},
		{"a\n\n```\ncode\n\nmore code", "a\n\n", "```\ncode\n\nmore code"},
		{"a\n\n```\ncode\n```\n\ntail", "a\n\n```\ncode\n```\n\n", "tail"},
	}
	for _, c := range cases {
		head, tail := SplitStable(c.in)
		if head != c.head || tail != c.tail {
			t.Errorf("SplitStable(%q) = %q, %q; want %q, %q", c.in, head, tail, c.head, c.tail)
		}
	}
}

// A message Markdown draws as nothing is drawn as its text.
func TestNothingRenderedFallsBackToTheText(t *testing.T) {
	t.Parallel()
	r := New(termenv.Ascii, false, true)
	src := "[a link definition the model wrote]: https://example.com/long/enough/to/wrap"
	for _, lines := range [][]string{r.Render(src, 20), r.RenderTail(src, 20)} {
		if len(lines) < 2 || !strings.Contains(strings.Join(lines, " "), "link definition the model") {
			t.Errorf("rendered %q", lines)
		}
		for _, l := range lines {
			if Width(l) > 20 {
				t.Errorf("line wider than 20: %q", l)
			}
		}
	}
}
