package web

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html/charset"
)

// decodeText's UTF-8 shortcut gives what the charset decoder gives.
func TestDecodeTextShortcutMatchesTheDecoder(t *testing.T) {
	t.Parallel()
	article, err := os.ReadFile(filepath.Join("testdata", "article.html"))
	if err != nil {
		t.Fatal(err)
	}
	latin1, err := os.ReadFile(filepath.Join("testdata", "latin1.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, ctype string
		body        []byte
	}{
		{"article", "text/html; charset=utf-8", article},
		{"article, no charset", "text/html", article},
		{"BOM", "text/html", append([]byte("\xef\xbb\xbf"), "<p>héllo</p>"...)},
		{"meta utf-8", "", []byte(`<meta charset="utf-8"><p>日本語</p>`)},
		{"latin1 by header", "text/html; charset=iso-8859-1", latin1},
		{"latin1 by meta", "text/html", latin1},
		{"invalid UTF-8", "text/html; charset=utf-8", []byte("<p>a\xffb</p>")},
		{"windows-1252 declared, ASCII body", "text/html; charset=windows-1252", []byte("<p>plain</p>")},
	} {
		r, err := charset.NewReader(bytes.NewReader(c.body), c.ctype)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := decodeText(c.body, c.ctype); got != string(bytes.ToValidUTF8(want, []byte("\uFFFD"))) {
			t.Errorf("%s: %q, the decoder gives %q", c.name, got, want)
		}
	}
}

// What a page hides is not what it says: an element with the hidden
// attribute (a boolean: any value, the empty one included), aria-hidden,
// navigation and comments never reach the model, in either format.
func TestHiddenContentIsDropped(t *testing.T) {
	t.Parallel()
	page := `<html><body><main><p>visible text</p>
<div hidden>bare hidden</div><div hidden="">empty hidden</div><p hidden="until-found">until found</p>
<span aria-hidden="true">aria hidden</span><nav>site nav</nav><div role="navigation">role nav</div>
<!-- a comment --><p>more visible</p></main></body></html>`
	for _, format := range []string{"markdown", "text"} {
		p, err := convertPage([]byte(page), "text/html; charset=utf-8", "https://example.test/", format, markdown)
		if err != nil {
			t.Fatal(err)
		}
		got := p.content
		for _, want := range []string{"visible text", "more visible"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: %q missing from %q", format, want, got)
			}
		}
		for _, gone := range []string{"bare hidden", "empty hidden", "until found", "aria hidden", "site nav", "role nav", "a comment"} {
			if strings.Contains(got, gone) {
				t.Errorf("%s: hidden %q reached the model: %q", format, gone, got)
			}
		}
	}
}
