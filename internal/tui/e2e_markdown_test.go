package tui_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// captureStyled returns the pane with its SGR sequences.
func (p *pane) captureStyled() string {
	out, err := tmux("capture-pane", "-p", "-e", "-t", p.session).Output()
	if err != nil {
		return ""
	}
	return string(out)
}

var fg256 = regexp.MustCompile(`38;5;(\d+)`)

// A reply with a Go and a Python fence shows each highlighted, more than
// one colour per fence, in a real terminal (tmux, 256 colours).
func TestE2EMarkdownFencesAreHighlighted(t *testing.T) {
	t.Parallel()
	reply := "Two snippets:\n\n```go\n// add sums.\nfunc add(a, b int) int {\n\treturn a + b + 42\n}\n```\n\n" +
		"```python\ndef greet(name):\n    # hello\n    return \"hi \" + name\n```\n\nDone: **both**."
	p := startTUI(t, fakemodel.New(t, fakemodel.Text(reply)))
	p.line("show code")
	p.waitFor("Done: both.", "✓ done")
	plain := strings.Split(p.capture(), "\n")
	styled := strings.Split(p.captureStyled(), "\n")
	row := func(sub string) int {
		for i, l := range plain {
			if strings.Contains(l, sub) {
				return i
			}
		}
		return -1
	}
	for _, fence := range []struct{ from, to string }{{"func add", "return a + b"}, {"def greet", "return \"hi"}} {
		i, j := row(fence.from), row(fence.to)
		if i < 0 || j < i || j >= len(styled) {
			t.Fatalf("fence %q not on screen:\n%s", fence.from, p.capture())
		}
		colours := map[string]bool{}
		for _, m := range fg256.FindAllStringSubmatch(strings.Join(styled[i:j+1], "\n"), -1) {
			colours[m[1]] = true
		}
		if len(colours) < 2 {
			t.Errorf("fence %q has %d colour(s): %q", fence.from, len(colours), styled[i:j+1])
		}
	}
	if strings.Contains(p.capture(), "```") {
		t.Errorf("raw fences on screen:\n%s", p.capture())
	}
}
