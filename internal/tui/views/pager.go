package views

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
)

// PagerHints is the pager's footer (CONTRACT.md §14.8).
const PagerHints = "q/Esc close · j/k scroll · Space page · Ctrl+D/U half · g/G top/bottom · / search · c copy"

// defaultPage is the page height before the first render.
const defaultPage = 10

// Pager is the full-screen text viewer of CONTRACT.md §14.8: scrolling, search and
// copy over sanitised text. Its content never reaches the transcript.
type Pager struct {
	Title string
	// Margin is subtracted from the terminal width to get the wrap width;
	// MinWidth is the smallest wrap width.
	Margin, MinWidth int
	// LineStyle, when set, styles each visible line (a diff's colours).
	LineStyle func(string) string

	theme  *theme.Theme
	source string   // sanitised body, what `c` copies
	lines  []string // body wrapped to width
	width  int
	scroll int
	page   int

	searching bool
	query     string
	matches   []int // line indices
	current   int
	armedG    bool
}

// NewPager returns a pager over body with the default geometry (wrap width
// = terminal width − 2, at least 20).
func NewPager(t *theme.Theme, title, body string) *Pager {
	src := termtext.ExpandTabs(termtext.Sanitize(body))
	return &Pager{Title: termtext.OneLine(termtext.Sanitize(title)), Margin: 2, MinWidth: 20, theme: t, source: src, page: defaultPage}
}

// FullScreen implements View.
func (p *Pager) FullScreen() bool { return true }

// Source returns the unwrapped text the pager copies.
func (p *Pager) Source() string { return p.source }

// wrapWidth is the body width for a terminal width.
func (p *Pager) wrapWidth(w int) int {
	return min(max(w-p.Margin, p.MinWidth), max(w-2, 1))
}

func (p *Pager) layout(w int) {
	ww := p.wrapWidth(w)
	if ww == p.width && p.lines != nil {
		return
	}
	p.width = ww
	p.lines = p.lines[:0]
	for _, l := range strings.Split(p.source, "\n") {
		p.lines = append(p.lines, termtext.WrapPlain(l, ww)...)
	}
	if p.query != "" && !p.searching {
		// Matches are over display rows, so a new width moves them.
		p.find()
		if len(p.matches) > 0 {
			p.reveal()
		}
	}
	p.clamp()
}

func (p *Pager) maxScroll() int { return max(len(p.lines)-p.page, 0) }

func (p *Pager) clamp() { p.scroll = min(max(p.scroll, 0), p.maxScroll()) }

// Update implements View.
func (p *Pager) Update(k tea.KeyMsg) Action {
	if p.searching {
		return p.searchKey(k)
	}
	wasArmed := p.armedG
	p.armedG = false
	half := max((p.page+1)/2, 1)
	switch k.String() {
	case "q", "esc":
		return closeView()
	case "ctrl+c":
		return closeView()
	case "j", "down":
		p.scroll++
	case "k", "up":
		p.scroll--
	case "ctrl+d":
		p.scroll += half
	case "ctrl+u":
		p.scroll -= half
	case "ctrl+f", "pgdown", " ":
		p.scroll += p.page
	case "ctrl+b", "pgup":
		p.scroll -= p.page
	case "home":
		p.scroll = 0
	case "g":
		if wasArmed {
			p.scroll = 0
		} else {
			p.armedG = true
		}
	case "G", "end":
		p.scroll = p.maxScroll()
	case "/":
		p.searching, p.query, p.matches = true, "", nil
	case "n":
		p.step(1)
	case "N":
		p.step(-1)
	case "c", "y":
		return emit(Copy{Text: p.source, Label: "Pager content"})
	default:
		return none()
	}
	p.clamp()
	return none()
}

// Wheel implements Wheeler: three rows a notch.
func (p *Pager) Wheel(delta int) Action {
	p.scroll += 3 * delta
	p.clamp()
	return none()
}

func (p *Pager) searchKey(k tea.KeyMsg) Action {
	switch k.Type {
	case tea.KeyEsc:
		p.searching, p.query, p.matches = false, "", nil
	case tea.KeyBackspace, tea.KeyCtrlH:
		if r := []rune(p.query); len(r) > 0 {
			p.query = string(r[:len(r)-1])
		}
	case tea.KeyEnter:
		p.searching = false
		p.find()
		if len(p.matches) > 0 {
			p.current = 0
			p.reveal()
		}
	case tea.KeyRunes, tea.KeySpace:
		p.query += string(k.Runes)
	}
	return none()
}

// find collects the wrapped lines containing the query, ignoring ASCII case.
func (p *Pager) find() {
	p.matches = p.matches[:0]
	if p.query == "" {
		return
	}
	q := asciiLower(p.query)
	for i, l := range p.lines {
		if strings.Contains(asciiLower(l), q) {
			p.matches = append(p.matches, i)
		}
	}
	if p.current >= len(p.matches) {
		p.current = 0
	}
}

func (p *Pager) step(d int) {
	if len(p.matches) == 0 {
		return
	}
	p.current = (p.current + d + len(p.matches)) % len(p.matches)
	p.reveal()
}

func (p *Pager) reveal() {
	p.scroll = p.matches[p.current]
	p.clamp()
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// View implements View: title bar, body with a scroll rail, optional
// search prompt and match status rows, footer hints.
func (p *Pager) View(w, h int) string {
	p.layout(w)
	extra := 0
	if p.searching {
		extra++
	}
	if len(p.matches) > 0 && !p.searching {
		extra++
	}
	p.page = max(h-2-extra, 1)
	p.clamp()
	rows := make([]string, 0, h)
	pos := fmt.Sprintf("%d-%d/%d", min(p.scroll+1, len(p.lines)), min(p.scroll+p.page, len(p.lines)), len(p.lines))
	title := p.theme.Bold.Render(termtext.Truncate(p.Title, w-len(pos)-2, "…"))
	rows = append(rows, termtext.PadRight(title, w-len(pos))+p.theme.Dim.Render(pos))
	hit := map[int]bool{}
	for _, m := range p.matches {
		hit[m] = true
	}
	for i := 0; i < p.page; i++ {
		n := p.scroll + i
		line := ""
		if n < len(p.lines) {
			line = termtext.PadRight(p.lines[n], p.width)
			switch {
			case len(p.matches) > 0 && n == p.matches[p.current]:
				line = p.theme.CurrentMatch.Render(line)
			case hit[n]:
				line = p.theme.Match.Render(line)
			case p.LineStyle != nil:
				line = p.LineStyle(line)
			}
		}
		rows = append(rows, termtext.PadRight(line, w-1)+p.rail(i))
	}
	if p.searching {
		rows = append(rows, p.theme.Accent.Render("/"+p.query+"▏"))
	} else if len(p.matches) > 0 {
		rows = append(rows, p.theme.Accent.Render(fmt.Sprintf("match %d/%d (n/N)", p.current+1, len(p.matches))))
	}
	rows = append(rows, p.theme.Dim.Render(termtext.Truncate(PagerHints, w, "…")))
	return strings.Join(rows, "\n")
}

// rail draws the scroll position in the last column.
func (p *Pager) rail(i int) string {
	if len(p.lines) <= p.page {
		return " "
	}
	thumb := max(p.page*p.page/len(p.lines), 1)
	start := 0
	if ms := p.maxScroll(); ms > 0 {
		start = (p.page - thumb) * p.scroll / ms
	}
	if i >= start && i < start+thumb {
		return p.theme.Accent.Render("┃")
	}
	return p.theme.Rule.Render("│")
}

// Scroll is the first visible line (for tests).
func (p *Pager) Scroll() int { return p.scroll }

// Lines returns the wrapped lines (for tests).
func (p *Pager) Lines() []string { return p.lines }
