package mdterm

import (
	"strconv"
	"strings"

	"github.com/muesli/termenv"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// walker draws one parsed document.
type walker struct {
	st        *styles
	src       []byte
	hl        *highlighter
	highlight bool
}

// blocks draws the block children of n, one blank line between blocks.
func (w *walker) blocks(n ast.Node, width int) []string { return w.children(n, width, true) }

// children draws n's blocks, separated by blank lines when sep is set
// (not inside the items of a tight list).
func (w *walker) children(n ast.Node, width int, sep bool) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		lines := w.block(c, width)
		if len(lines) == 0 {
			continue
		}
		if sep && len(out) > 0 && out[len(out)-1] != "" {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

func (w *walker) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return w.paragraph(w.inlines(n, nil), width, "", "")
	case *ast.Heading:
		return w.paragraph(w.inlines(n, []termenv.Style{w.st.heading}), width, "", "")
	case *ast.ThematicBreak:
		return []string{w.st.apply(w.st.dim, strings.Repeat("─", width))}
	case *ast.FencedCodeBlock:
		return w.code(string(n.Language(w.src)), n.Lines(), width)
	case *ast.CodeBlock:
		return w.code("", n.Lines(), width)
	case *ast.Blockquote:
		bar := w.st.apply(w.st.dim, "│ ")
		inner := w.blocks(n, max(width-2, 4))
		for i, l := range inner {
			inner[i] = strings.TrimRight(bar+l, " ")
		}
		return inner
	case *ast.List:
		return w.list(n, width)
	case *ast.HTMLBlock:
		var out []string
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			out = append(out, hardWrap(strings.TrimRight(string(seg.Value(w.src)), "\n"), width)...)
		}
		for i := range out {
			out[i] = w.st.apply(w.st.dim, out[i])
		}
		return out
	case *east.Table:
		return w.table(n, width)
	case *east.FootnoteList:
		return w.footnotes(n, width)
	}
	return w.blocks(n, width)
}

// paragraph wraps spans; a hard line break starts a new line.
func (w *walker) paragraph(spans []span, width int, first, rest string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(spans); i++ {
		if i < len(spans) && spans[i].text != "\n" {
			continue
		}
		prefix := rest
		if len(out) == 0 {
			prefix = first
		}
		out = append(out, wrapSpans(spans[start:i], width, prefix, rest)...)
		start = i + 1
	}
	return out
}

// list draws items with bullets (•, numbers, task boxes) and hanging
// indents; nested blocks are drawn inside the indent.
// footnotes draws GFM footnotes at the end, under a rule, each as its
// number and its text, as the references to it in the text are drawn.
func (w *walker) footnotes(n *east.FootnoteList, width int) []string {
	out := []string{w.st.apply(w.st.dim, strings.Repeat("─", min(width, 8)))}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		fn, ok := c.(*east.Footnote)
		if !ok {
			continue
		}
		label := "[" + strconv.Itoa(fn.Index) + "]"
		indent := strings.Repeat(" ", len(label)+1)
		for i, l := range w.blocks(fn, max(width-len(indent), 4)) {
			p := indent
			if i == 0 {
				p = w.st.apply(w.st.dim, label) + " "
			}
			out = append(out, strings.TrimRight(p+l, " "))
		}
	}
	return out
}

func (w *walker) list(n *ast.List, width int) []string {
	var out []string
	num := n.Start
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		bullet := "•"
		if n.IsOrdered() {
			bullet = strconv.Itoa(num) + "."
			num++
		}
		if box, ok := taskBox(item); ok {
			bullet = box
		}
		indent := strings.Repeat(" ", Width(bullet)+1)
		body := w.children(item, max(width-len(indent), 4), !n.IsTight)
		if len(out) > 0 && !n.IsTight {
			out = append(out, "")
		}
		if len(body) == 0 {
			body = []string{""}
		}
		for i, l := range body {
			p := indent
			if i == 0 {
				p = w.st.apply(w.st.dim, bullet) + " "
			}
			out = append(out, strings.TrimRight(p+l, " "))
		}
	}
	return out
}

// taskBox is ☐ or ☑ for a task-list item (its checkbox is the first
// inline of its first block, and is drawn as the bullet instead).
func taskBox(item ast.Node) (string, bool) {
	first := item.FirstChild()
	if first == nil {
		return "", false
	}
	cb, ok := first.FirstChild().(*east.TaskCheckBox)
	if !ok {
		return "", false
	}
	if cb.IsChecked {
		return "☑", true
	}
	return "☐", true
}

// code draws a code block: its language label, then each line highlighted
// and hard-wrapped, indented two cells.
func (w *walker) code(lang string, lines *text.Segments, width int) []string {
	var b strings.Builder
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(w.src))
	}
	src := strings.ReplaceAll(strings.TrimRight(b.String(), "\n"), "\t", "    ")
	var out []string
	if lang != "" {
		out = append(out, w.st.apply(w.st.dim, lang))
	}
	for _, l := range w.highlighted(lang, src, max(width-2, 4)) {
		out = append(out, "  "+l)
	}
	return out
}
