package mdterm

import (
	"strings"

	"github.com/muesli/termenv"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// inlines collects the inline children of n as styled spans; a hard line
// break is a span holding "\n".
func (w *walker) inlines(n ast.Node, style []termenv.Style) []span {
	var out []span
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		out = w.inline(c, style, out)
	}
	return out
}

func with(style []termenv.Style, s termenv.Style) []termenv.Style {
	return append(append([]termenv.Style(nil), style...), s)
}

func (w *walker) inline(n ast.Node, style []termenv.Style, out []span) []span {
	add := func(text string, st []termenv.Style) { out = append(out, span{text: text, style: st}) }
	switch n := n.(type) {
	case *ast.Text:
		add(string(n.Value(w.src)), style)
		switch {
		case n.HardLineBreak():
			add("\n", nil)
		case n.SoftLineBreak():
			add(" ", style)
		}
	case *ast.String:
		add(string(n.Value), style)
	case *ast.CodeSpan:
		code := w.plainText(n)
		if !w.st.color {
			code = "`" + code + "`" // without colour the backticks are the only marker
		}
		add(code, with(style, w.st.code))
	case *ast.Emphasis:
		st := w.st.italic
		if n.Level >= 2 {
			st = w.st.bold
		}
		out = append(out, w.inlines(n, with(style, st))...)
	case *east.Strikethrough:
		out = append(out, w.inlines(n, with(style, w.st.strike))...)
	case *ast.Link:
		label := w.inlines(n, with(style, w.st.link))
		out = append(out, label...)
		if dest := string(n.Destination); dest != "" && dest != w.plainText(n) {
			add(" ("+dest+")", with(style, w.st.dim))
		}
	case *ast.AutoLink:
		add(string(n.URL(w.src)), with(style, w.st.link))
	case *ast.Image:
		add("[image: "+w.plainText(n)+"] ("+string(n.Destination)+")", with(style, w.st.dim))
	case *ast.RawHTML:
		segs := n.Segments
		for i := 0; i < segs.Len(); i++ {
			s := segs.At(i)
			add(string(s.Value(w.src)), with(style, w.st.dim))
		}
	case *east.TaskCheckBox:
		// drawn as the list bullet
	default:
		out = append(out, w.inlines(n, style)...)
	}
	return out
}

// plainText is the text of n's inline children without styling.
func (w *walker) plainText(n ast.Node) string {
	var b strings.Builder
	for _, sp := range w.inlines(n, nil) {
		if sp.text != "\n" {
			b.WriteString(sp.text)
		}
	}
	return b.String()
}
