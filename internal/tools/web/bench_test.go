package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/codewhale/codewhale/internal/testutil/cputime"
	"github.com/codewhale/codewhale/internal/tools"
)

// bigPage is a ~1 MB article: the fixture's <main> repeated.
func bigPage(b testing.TB) []byte {
	b.Helper()
	page, err := os.ReadFile(filepath.Join("testdata", "article.html"))
	if err != nil {
		b.Fatal(err)
	}
	start, end := bytes.Index(page, []byte("<article>")), bytes.Index(page, []byte("</article>"))
	body := page[start : end+len("</article>")]
	var buf bytes.Buffer
	buf.WriteString("<html><head><title>big</title></head><body><main>")
	for buf.Len() < 1<<20 {
		buf.Write(body)
	}
	buf.WriteString("</main></body></html>")
	return buf.Bytes()
}

// fastest records the quickest single iteration, reported as min-ms: on
// this shared 2-core VM an average mostly measures the other tenants, and
// the best of N is the closest to what a quiet machine gives.
type fastest struct {
	b    *testing.B
	best time.Duration
}

func (f *fastest) time(fn func()) {
	start := time.Now()
	fn()
	if d := time.Since(start); f.best == 0 || d < f.best {
		f.best = d
	}
}

func (f *fastest) report() { f.b.ReportMetric(float64(f.best.Microseconds())/1000, "min-ms") }

// BenchmarkHTMLToMarkdown is the conversion cost of fetch beyond the
// transfer (target: a 1 MB page under 50 ms).
func BenchmarkHTMLToMarkdown1MB(b *testing.B) {
	page := bigPage(b)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	defer cputime.PerOp(b)()
	f := fastest{b: b}
	defer f.report()
	for i := 0; i < b.N; i++ {
		f.time(func() {
			if p, err := convertHTML(page, "text/html; charset=utf-8", "https://example.com/", "markdown"); err != nil || len(p.content) == 0 {
				b.Fatal("empty", err)
			}
		})
	}
}

// BenchmarkFetch1MB is a whole Web fetch of the 1 MB page from a loopback
// server — request, body, conversion, fitting to the result budget, the
// handle, the JSON result — next to the bare transfer of the same bytes
// (a fresh connection each time, as the tool makes): markdown minus
// transfer is the cost beyond the transfer (target: under 50 ms).
func BenchmarkFetch1MB(b *testing.B) {
	page := bigPage(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer srv.Close()
	b.Run("transfer", func(b *testing.B) {
		defer cputime.PerOp(b)()
		f := fastest{b: b}
		defer f.report()
		for i := 0; i < b.N; i++ {
			f.time(func() {
				tr := &http.Transport{}
				resp, err := (&http.Client{Transport: tr}).Get(srv.URL + "/big")
				if err != nil {
					b.Fatal(err)
				}
				if n, _ := io.Copy(io.Discard, resp.Body); n != int64(len(page)) {
					b.Fatal(n)
				}
				resp.Body.Close()
				tr.CloseIdleConnections()
			})
		}
	})
	b.Run("markdown", func(b *testing.B) {
		reg := tools.NewRegistry()
		reg.Register(newTool(loopbackAllowed(), SearchConfig{}))
		in := json.RawMessage(`{"action":"fetch","url":"` + srv.URL + `/big"}`)
		tc := &tools.Context{Workspace: b.TempDir()}
		b.ReportAllocs()
		defer cputime.PerOp(b)()
		f := fastest{b: b}
		defer f.report()
		for i := 0; i < b.N; i++ {
			f.time(func() {
				c, err := reg.Prepare(ToolName, in)
				if err != nil {
					b.Fatal(err)
				}
				if res, err := c.Run(context.Background(), tc); err != nil || !res.Success {
					b.Fatal(err, res.Content)
				}
			})
		}
	})
}

// BenchmarkHTMLParse1MB is the reference for the row above: x/net/html
// parsing the same page, which the conversion starts with.
func BenchmarkHTMLParse1MB(b *testing.B) {
	page := bigPage(b)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	defer cputime.PerOp(b)()
	f := fastest{b: b}
	defer f.report()
	for i := 0; i < b.N; i++ {
		f.time(func() {
			if _, err := html.Parse(bytes.NewReader(page)); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkSearchParse is the per-backend result parsing cost (target:
// under 1 ms each).
func BenchmarkSearchParse(b *testing.B) {
	read := func(name string) []byte {
		d, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	ddg, sx := read("ddg.html"), read("searxng.json")
	b.Run("duckduckgo", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if r, _ := parseDuckDuckGo(ddg); len(r) != 3 {
				b.Fatal(len(r))
			}
		}
	})
	b.Run("searxng", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var r struct{ Results []map[string]any }
			if json.Unmarshal(sx, &r) != nil || len(r.Results) != 3 {
				b.Fatal("parse")
			}
		}
	})
}
