package web

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	md "github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// upstreamConverter is html-to-markdown configured as converter() is, but
// without removeAndJoin: the release's own removal and merge passes run.
var upstreamConverter = sync.OnceValue(func() *md.Converter {
	c := md.NewConverter(md.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(), strikethrough.NewStrikethroughPlugin()))
	for tag := range dropped {
		c.Register.TagType(tag, md.TagTypeRemove, md.PriorityStandard)
	}
	return c
})

func upstreamMarkdown(root *html.Node, pageURL string) ([]byte, error) {
	return upstreamConverter().ConvertNode(root, md.WithDomain(pageURL))
}

// htmlCorpus is real HTML: our fixtures, the 1 MB benchmark page, every
// .html file in GOROOT, the upstream library's own golden inputs (its edge
// cases: escaping, lists, tables, code) and, when CODEWHALE_HTML_CORPUS
// names a directory, every .html file under it (a wider local run, e.g. a
// toolchain's HTML documentation).
func htmlCorpus(t *testing.T) map[string][]byte {
	t.Helper()
	pages := map[string][]byte{}
	add := func(root, label string) {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			pages[label+"/"+rel] = b
			return nil
		})
		if err != nil {
			t.Fatalf("reading %s: %v", root, err)
		}
	}
	add("testdata", "testdata")
	add(goCmd(t, "env", "GOROOT"), "GOROOT")
	add(goCmd(t, "list", "-m", "-f", "{{.Dir}}", "github.com/JohannesKaufmann/html-to-markdown/v2"), "upstream")
	if dir := os.Getenv("CODEWHALE_HTML_CORPUS"); dir != "" {
		add(dir, "corpus")
	}
	pages["bench/1MB"] = bigPage(t)
	return pages
}

func goCmd(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		e2e.Missing(t, fmt.Sprintf("go %s: %v", strings.Join(args, " "), err))
	}
	return strings.TrimSpace(string(out))
}

// TestConvertAgreesWithUpstream: our linear passes (prune, removeAndJoin)
// change nothing the release's own passes give, through our pipeline (prune,
// then <main>/<article>) and on whole documents (head, scripts and all,
// where removeAndJoin does all the removing).
func TestConvertAgreesWithUpstream(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: converts a corpus of real HTML twice; make test runs it (go test without -short)")
	}
	t.Parallel()
	pages := htmlCorpus(t)
	if len(pages) < 30 {
		t.Fatalf("only %d pages in the corpus", len(pages))
	}
	for name, body := range pages {
		got, gerr := convertPage(body, "text/html", "https://example.com/a/b.html", "markdown", markdown)
		want, werr := convertPage(body, "text/html", "https://example.com/a/b.html", "markdown", upstreamMarkdown)
		if gerr != nil || werr != nil {
			t.Errorf("%s (our pipeline): %v; the release: %v", name, gerr, werr)
		} else if got != want {
			t.Errorf("%s (our pipeline): %s", name, firstDifference(got.content, want.content))
		}
		whole := func(toMD toMarkdown) string {
			doc, err := html.Parse(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			out, err := toMD(doc, "https://example.com/")
			if err != nil {
				return "error: " + err.Error()
			}
			return string(out)
		}
		if got, want := whole(markdown), whole(upstreamMarkdown); got != want {
			t.Errorf("%s (whole document): %s", name, firstDifference(got, want))
		}
	}
	t.Logf("%d pages agree", len(pages))
}

func firstDifference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("differs at byte %d of %d (upstream %d):\n got …%q…\nwant …%q…", i, len(got), len(want),
		got[lo:min(len(got), i+80)], want[lo:min(len(want), i+80)])
}
