// Package markdown renders assistant Markdown for the transcript with
// mdterm (goldmark and chroma lexers) and splits a streaming message into its
// stable head and its unfinished tail.
package markdown

import (
	"strings"

	"github.com/muesli/termenv"

	"github.com/codewhale/codewhale/internal/mdterm"
	"github.com/codewhale/codewhale/internal/tui/termtext"
)

// Renderer turns Markdown into styled terminal lines. The zero value is not
// usable; call New.
type Renderer struct {
	md *mdterm.Renderer
}

// New returns a renderer for a colour profile and background; color false
// renders without colour.
func New(profile termenv.Profile, color, dark bool) *Renderer {
	return &Renderer{md: mdterm.New(profile, color, dark)}
}

// SetHyperlinks draws links as OSC 8 hyperlinks; call it before first use.
func (r *Renderer) SetHyperlinks(on bool) { r.md.SetHyperlinks(on) }

// Render renders src wrapped to width cells, without leading or trailing
// blank lines.
func (r *Renderer) Render(src string, width int) []string {
	width = max(width, 8)
	lines := r.md.Render(src, width)
	if len(lines) == 0 && strings.TrimSpace(src) != "" {
		return plain(src, width)
	}
	return lines
}

// plain wraps text without Markdown styling.
func plain(src string, width int) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(src, "\n"), "\n") {
		out = append(out, termtext.WrapPlain(l, width)...)
	}
	return out
}

// RenderTail renders the unfinished tail of a streaming message as
// Markdown; an open code block is drawn without highlighting.
func (r *Renderer) RenderTail(src string, width int) []string {
	width = max(width, 8)
	lines := r.md.RenderTail(src, width)
	if len(lines) == 0 && strings.TrimSpace(src) != "" {
		return plain(src, width)
	}
	return lines
}

// SetNotify installs the function called, from another goroutine, when a
// long code block finished highlighting in the background.
func (r *Renderer) SetNotify(f func()) { r.md.SetNotify(f) }

// Plain is the fallback rendering, also used for the unfinished tail of a
// streaming message.
func Plain(src string, width int) []string { return plain(src, max(width, 8)) }

// SplitStable splits streaming Markdown into a stable head, ending at the
// last blank line outside a code fence, and the unfinished tail. The head
// will not change as more text arrives, so it can be rendered once.
func SplitStable(src string) (head, tail string) {
	cut, inFence := -1, false
	pos := 0
	for pos < len(src) {
		end := strings.IndexByte(src[pos:], '\n')
		if end < 0 {
			break // the last line is unfinished
		}
		line := src[pos : pos+end]
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
		} else if trimmed == "" && !inFence {
			cut = pos + end + 1
		}
		pos += end + 1
	}
	if cut < 0 {
		return "", src
	}
	return src[:cut], src[cut:]
}
