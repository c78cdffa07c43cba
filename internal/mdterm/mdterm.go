// Package mdterm renders the Markdown models write as styled, width-wrapped
// terminal lines. goldmark parses it (CommonMark with GFM tables,
// strikethrough, task lists and autolinks); this package draws the tree:
// the wrapping by display width, the terminal styles and the code
// highlighting (chroma lexers, go/scanner for Go, our own styles) are ours.
//
// Start-up: chroma's styles package (about 19 ms of init) is not imported,
// nor its lexers package (12–15 ms): the lexers are built on the first
// highlighted block from chroma's definitions in third_party/chromalexers
// (lexers.go).
package mdterm

import (
	"strings"
	"sync"

	"github.com/muesli/termenv"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Renderer renders Markdown for one colour profile. It is safe for
// concurrent use.
type Renderer struct {
	st styles
	md goldmark.Markdown
	hl *highlighter
}

type styles struct {
	profile termenv.Profile
	color   bool
	heading termenv.Style
	code    termenv.Style
	fence   termenv.Style
	link    termenv.Style
	dim     termenv.Style
	bold    termenv.Style
	italic  termenv.Style
	strike  termenv.Style
	syntax  syntaxStyles
	links   bool // draw links as OSC 8 hyperlinks
}

// New returns a renderer. color false renders without styling (NO_COLOR);
// dark picks colours for a dark background.
func New(profile termenv.Profile, color, dark bool) *Renderer {
	p := profile
	if !color {
		p = termenv.Ascii
	}
	accent, code, muted := "#7aa2f7", "#e0af68", "#737aa2"
	if !dark {
		accent, code, muted = "#1d4ed8", "#9a3412", "#6b7280"
	}
	s := termenv.Style{}
	fg := func(hex string) termenv.Style {
		if !color {
			return s
		}
		return s.Foreground(p.Color(hex))
	}
	st := styles{
		profile: p, color: color,
		heading: fg(accent).Bold(),
		code:    fg(code),
		fence:   fg(code),
		link:    fg(accent).Underline(),
		dim:     fg(muted),
		bold:    s.Bold(),
		italic:  s.Italic(),
		strike:  s.CrossOut(),
		syntax:  newSyntax(fg, dark),
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote))
	return &Renderer{st: st, md: md, hl: &highlighter{cache: map[string][]string{}}}
}

// SetHyperlinks makes links OSC 8 hyperlinks (the label, clickable in a
// terminal that supports them) instead of "label (url)". Call it before the
// renderer is first used.
func (r *Renderer) SetHyperlinks(on bool) { r.st.links = on }

func (s *styles) apply(st termenv.Style, text string) string {
	if !s.color || text == "" {
		return text
	}
	return st.Styled(text)
}

// Render renders src wrapped to width cells, without leading or trailing
// blank lines.
func (r *Renderer) Render(src string, width int) []string {
	return r.render(src, width, true)
}

// RenderTail renders the unfinished tail of a streaming message: Markdown
// like Render, but a code block still being written is not highlighted
// (it would be again at every delta); it is once the block is complete.
func (r *Renderer) RenderTail(src string, width int) []string {
	return r.render(src, width, false)
}

func (r *Renderer) render(src string, width int, highlight bool) []string {
	width = max(width, 8)
	source := []byte(strings.ReplaceAll(src, "\r\n", "\n"))
	doc := r.md.Parser().Parse(text.NewReader(source))
	w := &walker{st: &r.st, src: source, hl: r.hl, highlight: highlight}
	lines := trimBlank(w.blocks(doc, width))
	if len(lines) == 0 && strings.TrimSpace(src) != "" {
		return plainLines(src, width)
	}
	return lines
}

func trimBlank(out []string) []string {
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	for len(out) > 0 && strings.TrimSpace(out[0]) == "" {
		out = out[1:]
	}
	return out
}

// highlighter caches highlighted code blocks by language, width and text,
// so a block is highlighted once however often the message around it is
// rendered again (streaming, resizes back and forth, scrolling). With a
// notifier, a block for one of chroma's lexers (and a Go block of
// syncGoLines or more) is highlighted off the caller's goroutine: it is
// drawn plain until then, and Notify is called when the colours are ready.
// chroma's regexp lexers take about 75 µs a line, go/scanner with our
// formatting about 4–5 µs, and a keystroke must not wait for either
// (docs/PERFORMANCE.md: a 300-line block's colours arrive within 100 ms,
// frames meanwhile stay under 16 ms).
type highlighter struct {
	mu      sync.Mutex
	cache   map[string][]string
	order   []string
	pending map[string]bool
	notify  func()
}

const (
	highlightCacheSize = 128
	syncGoLines        = 3000 // go/scanner and our formatting: about 12–15 ms
)

func (h *highlighter) get(key string) ([]string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l, ok := h.cache[key]
	return l, ok
}

func (h *highlighter) put(key string, lines []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.pending, key)
	if _, ok := h.cache[key]; ok {
		return
	}
	if len(h.order) >= highlightCacheSize {
		delete(h.cache, h.order[0])
		h.order = h.order[1:]
	}
	h.cache[key] = lines
	h.order = append(h.order, key)
}

// later runs work for key on its own goroutine unless it already runs;
// the goroutine ends when the block is highlighted, then notifies.
func (h *highlighter) later(key string, work func() []string) {
	h.mu.Lock()
	if h.pending[key] || h.notify == nil {
		h.mu.Unlock()
		return
	}
	if h.pending == nil {
		h.pending = map[string]bool{}
	}
	h.pending[key] = true
	notify := h.notify
	h.mu.Unlock()
	go func() {
		h.put(key, work())
		notify()
	}()
}

func (h *highlighter) notifies() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.notify != nil
}

// SetNotify installs the function called (from another goroutine) when a
// code block finished highlighting off the caller's goroutine and should be
// drawn again. With none, every block is highlighted in place.
func (r *Renderer) SetNotify(f func()) {
	r.hl.mu.Lock()
	r.hl.notify = f
	r.hl.mu.Unlock()
}
