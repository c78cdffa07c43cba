package tui_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

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
// one colour per fence, in a real terminal (tmux, 256 colours). Python is
// chroma's, coloured off the UI goroutine: the pane is polled until its
// colours arrive.
// README.md "Configuration": fenced blocks are highlighted in the theme's colours
func TestE2EMarkdownFencesAreHighlighted(t *testing.T) {
	t.Parallel()
	reply := "Two snippets:\n\n```go\n// add sums.\nfunc add(a, b int) int {\n\treturn a + b + 42\n}\n```\n\n" +
		"```python\ndef greet(name):\n    # hello\n    return \"hi \" + name\n```\n\nDone: **both**."
	p := startTUI(t, fakemodel.New(t, fakemodel.Text(reply)))
	p.line("show code")
	p.waitFor("Done: both.", "✓ done")
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(5 * time.Millisecond) { // polling the pane
		problems := fenceColours(p.capture(), p.captureStyled())
		if len(problems) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s\n%s", strings.Join(problems, "\n"), p.capture())
		}
	}
	if strings.Contains(p.capture(), "```") {
		t.Errorf("raw fences on screen:\n%s", p.capture())
	}
}

// fenceColours says what is wrong with the two fences on screen: not drawn,
// or drawn in fewer than two colours.
func fenceColours(screen, styledScreen string) []string {
	plain, styled := strings.Split(screen, "\n"), strings.Split(styledScreen, "\n")
	row := func(sub string) int {
		for i, l := range plain {
			if strings.Contains(l, sub) {
				return i
			}
		}
		return -1
	}
	var problems []string
	for _, fence := range []struct{ from, to string }{{"func add", "return a + b"}, {"def greet", "return \"hi"}} {
		i, j := row(fence.from), row(fence.to)
		if i < 0 || j < i || j >= len(styled) {
			problems = append(problems, fmt.Sprintf("fence %q not on screen", fence.from))
			continue
		}
		colours := map[string]bool{}
		for _, m := range fg256.FindAllStringSubmatch(strings.Join(styled[i:j+1], "\n"), -1) {
			colours[m[1]] = true
		}
		if len(colours) < 2 {
			problems = append(problems, fmt.Sprintf("fence %q has %d colour(s): %q", fence.from, len(colours), styled[i:j+1]))
		}
	}
	return problems
}
