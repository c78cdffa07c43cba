package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/JohannesKaufmann/dom"
	md "github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/theory/jsonpath"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/codewhale/codewhale/internal/binpath"
	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/tools"
)

// decodeText converts body to UTF-8 using the Content-Type charset, a BOM or
// (for HTML) a <meta charset>; invalid bytes become U+FFFD.
func decodeText(body []byte, ctype string) string {
	// Most pages are UTF-8 already: then the decoder would copy 1 MB
	// through a transformer only to give the same bytes back.
	if _, name, _ := charset.DetermineEncoding(body[:min(len(body), 1024)], ctype); name == "utf-8" && utf8.Valid(body) {
		return string(body)
	}
	r, err := charset.NewReader(bytes.NewReader(body), ctype)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	out, err := io.ReadAll(r)
	if err != nil || !utf8.Valid(out) {
		return strings.ToValidUTF8(string(out), "\uFFFD")
	}
	return string(out)
}

type page struct{ content, title, canonical string }

// dropped are the elements that are page furniture, not content.
var dropped = map[string]bool{"script": true, "style": true, "noscript": true, "nav": true, "aside": true,
	"footer": true, "form": true, "iframe": true, "svg": true, "button": true, "template": true, "dialog": true}

// convertHTML turns a page into readable Markdown (or plain text): scripts,
// styles, navigation, asides and footers dropped, the <main> or single
// <article> preferred when the page has one, links made absolute against
// the final URL; the title and canonical URL are kept apart. It fails only
// when the HTML parser refuses the page: then nothing of it is returned,
// since what it would hide (hidden elements, comments) cannot be told apart.
func convertHTML(body []byte, ctype, pageURL, format string) (page, error) {
	return convertPage(body, ctype, pageURL, format, markdown)
}

// toMarkdown renders a pruned subtree; links resolve against pageURL.
type toMarkdown func(root *html.Node, pageURL string) ([]byte, error)

// markdown converts with html-to-markdown.
func markdown(root *html.Node, pageURL string) ([]byte, error) {
	return converter().ConvertNode(root, md.WithDomain(pageURL))
}

func convertPage(body []byte, ctype, pageURL, format string, toMD toMarkdown) (page, error) {
	doc, err := html.Parse(strings.NewReader(decodeText(body, ctype)))
	if err != nil {
		// The parser's only refusal: elements nested deeper than 512.
		return page{}, fmt.Errorf("the HTML parser refuses this page: %w", err)
	}
	var p page
	p.title, p.canonical = headFacts(doc)
	var o outline
	prune(doc, &o)
	root := o.mainContent(doc)
	if format == "text" {
		p.content = tidy(blockText(root))
		return p, nil
	}
	out, err := toMD(root, pageURL)
	if err != nil {
		p.content = tidy(blockText(root))
		return p, nil
	}
	p.content = strings.TrimSpace(string(out))
	return p, nil
}

var converter = sync.OnceValue(func() *md.Converter {
	c := md.NewConverter(md.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(), strikethrough.NewStrikethroughPlugin()))
	for tag := range dropped {
		c.Register.TagType(tag, md.TagTypeRemove, md.PriorityStandard)
	}
	c.Register.PreRenderer(removeAndJoin, md.PriorityEarly-1)
	return c
})

// removeAndJoin runs just before the base plugin's removal pass and does
// its work: it removes every node whose tag type is remove (plain text
// keeps them: only the Markdown converter drops inputs, heads, links and
// meta) and joins the text nodes that leaves adjacent, each run once. The
// plugin's own merge (prev.Data += c.Data) is quadratic in a run's length;
// after this pass it finds nothing to remove and nothing to merge.
func removeAndJoin(ctx md.Context, doc *html.Node) {
	sweep(doc, func(c *html.Node) bool {
		t, _ := ctx.GetTagType(dom.NodeName(c))
		return t == md.TagTypeRemove
	})
}

func headFacts(doc *html.Node) (title, canonical string) {
	var og string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "title":
				if title == "" {
					title = collapse(text(n))
				}
			case "link":
				if hasClass(strings.ToLower(attr(n, "rel")), "canonical") && canonical == "" {
					canonical = attr(n, "href")
				}
			case "meta":
				if attr(n, "property") == "og:title" && og == "" {
					og = collapse(attr(n, "content"))
				}
			case "body":
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if title == "" {
		title = og
	}
	return title, canonical
}

// outline is what prune finds on its way: the elements mainContent picks
// the content from, in document order.
type outline struct {
	mains, articles []*html.Node
	body            *html.Node
}

// prune removes dropped elements, comments and anything marked as
// navigation or hidden, joins the text nodes that leaves adjacent, and
// notes in o the <main>, <article> and <body> elements that remain (one
// walk over the page instead of two).
func prune(doc *html.Node, o *outline) {
	sweep(doc, func(c *html.Node) bool {
		drop, roleMain := classify(c)
		if !drop {
			o.note(c, roleMain)
		}
		return drop
	})
}

// sweep removes every descendant of n that drop reports (its subtree
// unvisited) and joins each run of adjacent text nodes left into its first.
// Removals and joins at one level depend only on which children there
// survive, so one walk gives the tree a removal walk and then a merge walk
// give. Each run is joined once (textRun), so a page of text split by a
// million removed elements costs what its text does. Recursion is as deep
// as the tree, which x/net/html bounds at 512.
func sweep(n *html.Node, drop func(*html.Node) bool) {
	var run textRun
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case drop(c):
			n.RemoveChild(c)
		case c.Type == html.TextNode:
			if run.add(c) {
				n.RemoveChild(c)
			}
		default:
			run.end()
			sweep(c, drop)
		}
		c = next
	}
	run.end()
}

// textRun joins a run of adjacent text nodes into its first: add each in
// order, then end. Appending each to the first (`first.Data += c.Data`)
// would copy the run's text once per node, quadratic in the run.
type textRun struct {
	first  *html.Node
	joined bool
	b      strings.Builder
}

// add puts text node c at the end of the run and reports whether it was
// joined into the run's first node (then the caller removes it).
func (r *textRun) add(c *html.Node) bool {
	if r.first == nil {
		r.first = c
		return false
	}
	if !r.joined {
		r.b.WriteString(r.first.Data)
		r.joined = true
	}
	r.b.WriteString(c.Data)
	return true
}

// end writes the joined text into the run's first node and starts anew.
func (r *textRun) end() {
	if r.joined {
		r.first.Data = r.b.String()
		r.b.Reset()
	}
	r.first, r.joined = nil, false
}

func (o *outline) note(n *html.Node, roleMain bool) {
	if n.Type != html.ElementNode {
		return
	}
	switch {
	case n.Data == "main" || roleMain:
		o.mains = append(o.mains, n)
	case n.Data == "article":
		o.articles = append(o.articles, n)
	case n.Data == "body":
		o.body = n
	}
}

// classify reads an element's attributes once: whether it is page
// furniture (a comment, a dropped tag, or an element marked as navigation
// or hidden) and whether its role is main. As attr does, each key's first
// occurrence counts.
func classify(n *html.Node) (drop, roleMain bool) {
	switch n.Type {
	case html.CommentNode:
		return true, false
	case html.ElementNode:
	default:
		return false, false
	}
	if dropped[n.Data] {
		return true, false
	}
	var role, ariaHidden bool
	for _, a := range n.Attr {
		switch {
		case a.Key == "role" && !role:
			if a.Val == "navigation" {
				return true, false
			}
			role, roleMain = true, a.Val == "main"
		case a.Key == "aria-hidden" && !ariaHidden:
			if a.Val == "true" {
				return true, false
			}
			ariaHidden = true
		case a.Key == "hidden":
			// A boolean attribute: present is hidden, whatever its value
			// (`hidden`, `hidden=""`, `hidden="until-found"`).
			return true, false
		}
	}
	return false, roleMain
}

// mainContent is the page's <main>, else its only <article>, else <body>.
func (o *outline) mainContent(doc *html.Node) *html.Node {
	switch {
	case len(o.mains) == 1:
		return o.mains[0]
	case len(o.articles) == 1:
		return o.articles[0]
	case o.body != nil:
		return o.body
	}
	return doc
}

var blockTags = map[string]bool{"p": true, "div": true, "section": true, "article": true, "main": true,
	"header": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "li": true,
	"ul": true, "ol": true, "pre": true, "blockquote": true, "table": true, "tr": true, "br": true, "hr": true,
	"dl": true, "dt": true, "dd": true, "figure": true, "figcaption": true}

// blockText is the visible text with a line break around block elements.
func blockText(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
		case html.ElementNode:
			if blockTags[n.Data] {
				b.WriteByte('\n')
			}
			if n.Data == "td" || n.Data == "th" {
				b.WriteString("\t")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && blockTags[n.Data] {
			b.WriteByte('\n')
		}
	}
	walk(n)
	return b.String()
}

// tidy collapses runs of spaces within lines and of blank lines.
func tidy(s string) string {
	var out []string
	blank := false
	for _, line := range strings.Split(s, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			if !blank && len(out) > 0 {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		out = append(out, line)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// project evaluates JSONPath expressions (RFC 9535) over a JSON body.
func project(body []byte, paths []string, truncated bool) (map[string][]any, error) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		if truncated {
			return nil, tools.ExecutionFailed("`fields` needs the whole JSON body, but it was cut at max_bytes; fetch again with a larger max_bytes")
		}
		return nil, tools.ExecutionFailed("`fields` needs a JSON body, but this one does not parse: %v", err)
	}
	out := map[string][]any{}
	for _, expr := range paths {
		expr = strings.TrimSpace(expr)
		if expr == "" {
			continue
		}
		p, err := jsonpath.Parse(expr)
		if err != nil {
			return nil, tools.InvalidInput("fields: %q is not a JSONPath expression (RFC 9535, e.g. $.items[*].name): %v", expr, err)
		}
		nodes := p.Select(doc)
		if nodes == nil {
			nodes = jsonpath.NodeList{}
		}
		out[expr] = nodes
	}
	return out, nil
}

// pdfText extracts a PDF's text with poppler's pdftotext when it is
// installed; otherwise the note says so. pdftotext is looked up past the
// workspace's PATH directories (internal/binpath): a fetch may run without
// asking, and a File patch could have put a pdftotext there. At most limit
// bytes of its output are kept (the fetch's max_bytes, the bound of every
// other body's text): past that the converter is killed and the text is
// reported cut (cut true), so a PDF that expands, or a converter that
// never stops, cannot make the call hold more than the fetch asked for.
func (t *Tool) pdfText(ctx context.Context, workspace string, body []byte, limit int) (text, note string, cut bool) {
	bin := t.opts.PDFToText
	if bin == "" {
		p, err := binpath.LookPath("pdftotext", workspace)
		if err != nil {
			return "", "This is a PDF and pdftotext (poppler-utils) is not installed, so its text cannot be extracted.", false
		}
		bin = p
	}
	f, err := os.CreateTemp("", "codewhale-fetch-*.pdf")
	if err != nil {
		return "", fmt.Sprintf("This is a PDF; extracting its text failed: %v", err), false
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(body)
	f.Close()
	if werr != nil {
		return "", fmt.Sprintf("This is a PDF; extracting its text failed: %v", werr), false
	}
	cmd := exec.CommandContext(ctx, bin, "-layout", "-enc", "UTF-8", f.Name(), "-")
	cmd.Env = secrets.Environ() // the scrubbed environment a command gets
	cmd.WaitDelay = time.Second // a child that keeps the pipe open does not hold the call
	stdout, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return "", fmt.Sprintf("This is a PDF; pdftotext could not read it (%v).", err), false
	}
	out, rerr := io.ReadAll(io.LimitReader(stdout, int64(limit)+1))
	if cut = len(out) > limit; cut {
		_ = cmd.Process.Kill()
		out = trimPartialRune(out[:limit])
	}
	err = cmd.Wait()
	if !cut && (err != nil || rerr != nil) {
		if err == nil {
			err = rerr
		}
		return "", fmt.Sprintf("This is a PDF; pdftotext could not read it (%v).", err), false
	}
	note = "Text extracted from a PDF with pdftotext."
	if cut {
		note = fmt.Sprintf("Text extracted from a PDF with pdftotext; it was cut at max_bytes (%d bytes of text), "+
			"fetch again with a larger max_bytes for more.", limit)
	}
	return strings.TrimSpace(strings.ToValidUTF8(string(out), "\uFFFD")), note, cut
}

// trimPartialRune drops an incomplete UTF-8 sequence a byte cut left at
// the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax-1 && len(b) > 0; i++ {
		if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size != 1 {
			break
		}
		b = b[:len(b)-1]
	}
	return b
}
