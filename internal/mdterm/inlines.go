package mdterm

import (
	"strconv"
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
		dest := string(n.Destination)
		if target := w.st.hyperlink(dest); target != "" {
			for i := range label {
				label[i].link = target
			}
			return append(out, label...)
		}
		out = append(out, label...)
		if dest != "" && dest != w.plainText(n) {
			add(" ("+dest+")", with(style, w.st.dim))
		}
	case *ast.AutoLink:
		// The label is the text as written (an e-mail address, www.…); the
		// target is the full URL (mailto:…, http://www.…).
		url := string(n.URL(w.src))
		if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
			url = "mailto:" + url
		}
		out = append(out, span{text: string(n.Label(w.src)), style: with(style, w.st.link), link: w.st.hyperlink(url)})
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
	case *east.FootnoteLink:
		add("["+strconv.Itoa(n.Index)+"]", with(style, w.st.dim))
	case *east.FootnoteBacklink:
		// the note's number already says where it belongs
	default:
		out = append(out, w.inlines(n, style)...)
	}
	return out
}

// hyperlink is the OSC 8 target for a link to dest, or "" when links are
// drawn as text: hyperlinks are off, or dest is not an http(s) or mailto
// URL of printable ASCII (anything else — javascript:, file:, a relative
// path, a control byte that would end the escape — keeps "label (url)",
// where the reader sees where it goes).
func (s *styles) hyperlink(dest string) string {
	if !s.links || len(dest) > 2048 {
		return ""
	}
	lower := strings.ToLower(dest)
	if !strings.HasPrefix(lower, "https://") && !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "mailto:") {
		return ""
	}
	for i := 0; i < len(dest); i++ {
		if dest[i] <= ' ' || dest[i] >= 0x7f {
			return ""
		}
	}
	return dest
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
