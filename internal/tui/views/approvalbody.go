package views

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/codewhale/codewhale/internal/approvalcard"
	"github.com/codewhale/codewhale/internal/tui/termtext"
)

// writePreviewLines is how much of a File write the card shows; the rest
// scrolls in the Alt+V pager.
const writePreviewLines = 10

// bodyCache holds the card's body rows for one width; the request never
// changes while the card is open.
type bodyCache struct {
	width int
	rows  []string
	page  int // body rows visible at the last render (PgUp/PgDn step)
}

func itoa(n int) string { return strconv.Itoa(n) }

// card builds the body rows of one approval card at an inner width.
type card struct {
	a    *Approval
	w    int
	rows []string
}

// bodyRows draws what the card asks about (approvalcard.Items: the
// reason, the tool's facts, never cut, every other argument, the intent).
func (a *Approval) bodyRows(w int) []string {
	if a.body.width == w && a.body.rows != nil {
		return a.body.rows
	}
	c := &card{a: a, w: w}
	for _, it := range approvalcard.Items(a.Req) {
		c.item(it)
	}
	if len(c.rows) == 0 {
		c.rows = []string{a.theme.Dim.Render("(no arguments)")}
	}
	a.body = bodyCache{width: w, rows: c.rows, page: a.body.page}
	return c.rows
}

// item draws one fact.
func (c *card) item(it approvalcard.Item) {
	switch it.Kind {
	case approvalcard.Reason:
		c.reason(it.Text)
	case approvalcard.Field:
		c.field(it.Label, it.Text)
	case approvalcard.Block:
		var style *lipgloss.Style
		switch it.Diff {
		case approvalcard.Removed:
			style = &c.a.theme.DiffDel
		case approvalcard.Added:
			style = &c.a.theme.DiffAdd
		}
		c.block(it.Label, it.Text, style)
	case approvalcard.Preview:
		c.writePreview(it.Text)
	case approvalcard.Patch:
		c.patch(it.Text)
	case approvalcard.Flag:
		c.warnFlag(it.Label, it.On, it.Meaning)
	case approvalcard.Warning:
		c.hang(termtext.WrapStyled(c.a.theme.Bold.Render(it.Label+":")+" "+c.a.theme.Warning.Render(it.Text)+" — "+it.Note, max(c.w-2, 1)))
	case approvalcard.Intent:
		c.intent(it.Text)
	}
}

// visible makes text safe to draw while keeping what matters to a reader:
// a carriage return, which a terminal would use to hide text, is shown.
func visible(s string) string {
	return termtext.ExpandTabs(termtext.Sanitize(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "␍")))
}

// field is `Label: value`, wrapped in full with continuation rows indented.
func (c *card) field(label, value string) {
	value = visible(value)
	if strings.TrimSpace(value) == "" {
		return
	}
	if strings.Contains(strings.TrimRight(value, "\n"), "\n") {
		c.block(label, value, nil)
		return
	}
	rows := termtext.WrapPlain(label+": "+strings.TrimRight(value, "\n"), max(c.w-2, 1))
	if rest, ok := strings.CutPrefix(rows[0], label+":"); ok {
		rows[0] = c.a.theme.Bold.Render(label+":") + rest
	}
	c.hang(rows)
}

// hang appends rows wrapped two cells short of the width, indenting all
// but the first.
func (c *card) hang(rows []string) {
	for i, r := range rows {
		if i > 0 {
			r = "  " + r
		}
		c.rows = append(c.rows, r)
	}
}

// block is a labelled multi-line text with a line-number gutter, each
// source line wrapped in full: newlines stay newlines, so `echo ok` and
// `touch X` on two lines read as two commands.
func (c *card) block(label, text string, style *lipgloss.Style) {
	text = strings.TrimRight(visible(text), "\n")
	lines := strings.Split(text, "\n")
	c.rows = append(c.rows, c.a.theme.Bold.Render(fmt.Sprintf("%s (%s):", label, plural(len(lines), "line"))))
	c.numbered(lines, 0, style)
}

// numbered draws lines with a right-aligned number gutter.
func (c *card) numbered(lines []string, more int, style *lipgloss.Style) {
	digits := len(itoa(len(lines) + more))
	gutter := strings.Repeat(" ", digits+1) + "│ "
	for i, l := range lines {
		num := c.a.theme.Dim.Render(fmt.Sprintf("%*d │ ", digits+1, i+1))
		for j, r := range termtext.WrapPlain(l, max(c.w-digits-4, 1)) {
			if style != nil {
				r = style.Render(r)
			}
			if j == 0 {
				c.rows = append(c.rows, num+r)
			} else {
				c.rows = append(c.rows, c.a.theme.Dim.Render(gutter)+r)
			}
		}
	}
}

// warnFlag shows an authority flag; granted authority stands out.
func (c *card) warnFlag(label string, on bool, meaning string) {
	if !on {
		c.rows = append(c.rows, c.a.theme.Bold.Render(label+":")+" no")
		return
	}
	c.hang(termtext.WrapStyled(c.a.theme.Bold.Render(label+":")+" "+c.a.theme.Warning.Render("yes")+" — "+meaning, max(c.w-2, 1)))
}

// writePreview is the size of a write and its first lines.
func (c *card) writePreview(content string) {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	if content == "" {
		lines = nil
	}
	c.field("Write", groupDigits(len(content))+" bytes · "+plural(len(lines), "line"))
	shown := lines
	if len(shown) > writePreviewLines {
		shown = shown[:writePreviewLines]
	}
	for i := range shown {
		shown[i] = visible(shown[i])
	}
	c.numbered(shown, len(lines)-len(shown), nil)
	if more := len(lines) - len(shown); more > 0 {
		c.rows = append(c.rows, c.a.theme.Dim.Render(fmt.Sprintf("… %d more lines (Alt+V shows all)", more)))
	}
}

// patch is a unified diff, coloured, in full.
func (c *card) patch(p string) {
	lines := strings.Split(strings.TrimRight(visible(p), "\n"), "\n")
	c.rows = append(c.rows, c.a.theme.Bold.Render("Patch ("+plural(len(lines), "line")+"):"))
	t := c.a.theme
	for _, l := range lines {
		style := t.Text
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			style = t.DiffMeta
		case strings.HasPrefix(l, "+"):
			style = t.DiffAdd
		case strings.HasPrefix(l, "-"):
			style = t.DiffDel
		case strings.HasPrefix(l, "@@"):
			style = t.DiffHunk
		}
		for _, r := range termtext.WrapPlain(l, c.w) {
			c.rows = append(c.rows, style.Render(r))
		}
	}
}

// reason says why the call needs a person's explicit yes.
func (c *card) reason(text string) {
	rows := termtext.WrapPlain(visible(text), max(c.w-2, 1))
	for i, r := range rows {
		rows[i] = c.a.theme.Warning.Render(r)
	}
	c.hang(rows)
}

func (c *card) intent(text string) {
	in := strings.TrimSpace(termtext.Sanitize(text))
	if in == "" {
		return
	}
	wrapped := termtext.WrapPlain("Intent: "+termtext.OneLine(in), c.w)
	if len(wrapped) > 3 {
		wrapped = append(wrapped[:2], termtext.Truncate(wrapped[2], c.w-1, "")+"…")
	}
	c.rows = append(c.rows, wrapped...)
}

// groupDigits writes n with thousands separators.
func groupDigits(n int) string {
	s := itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// plural is `1 line`, `2 lines`.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return itoa(n) + " " + noun + "s"
}
