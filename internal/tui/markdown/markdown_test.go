package markdown_test

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"github.com/codewhale/codewhale/internal/tui/markdown"
	"github.com/codewhale/codewhale/internal/tui/termtext"
)

func TestRenderWrapsToWidthWithoutMarginsOrPadding(t *testing.T) {
	t.Parallel()
	r := markdown.New(termenv.TrueColor, true, true)
	rows := r.Render("# Heading\n\nSome **bold** text that is long enough to wrap across more than one row here.\n\n```go\nfmt.Println(1)\n```", 30)
	if termtext.Width(rows[0]) == 0 || termtext.Width(rows[len(rows)-1]) == 0 {
		t.Errorf("leading or trailing blank rows: %q", rows)
	}
	for _, row := range rows {
		if w := termtext.Width(row); w > 30 {
			t.Errorf("row wider than 30 (%d): %q", w, termtext.Strip(row))
		}
		if strings.HasSuffix(termtext.Strip(row), " ") {
			t.Errorf("trailing padding kept: %q", termtext.Strip(row))
		}
	}
	if !strings.Contains(termtext.Strip(strings.Join(rows, "\n")), "fmt.Println(1)") {
		t.Errorf("code block lost:\n%s", strings.Join(rows, "\n"))
	}
}

func TestSplitStableCutsAtTheLastBlankLineOutsideAFence(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, head, tail string }{
		{"one line", "", "one line"},
		{"para\n\nnext", "para\n\n", "next"},
		{"a\n\n```\ncode\n\nmore code", "a\n\n", "```\ncode\n\nmore code"},
		{"a\n\n```\ncode\n```\n\ntail", "a\n\n```\ncode\n```\n\n", "tail"},
	}
	for _, c := range cases {
		head, tail := markdown.SplitStable(c.in)
		if head != c.head || tail != c.tail {
			t.Errorf("SplitStable(%q) = %q, %q; want %q, %q", c.in, head, tail, c.head, c.tail)
		}
	}
}
