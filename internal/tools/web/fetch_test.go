package web

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/handles"
)

// README.md "Web and GitHub": fetch returns readable Markdown without scripts, styles, navigation, asides and footers, keeping title and canonical URL.
func TestFetchArticleAsMarkdown(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(fixture(t, "article.html"))
	})
	res, _, err := call(t, newTool(loopbackAllowed(), SearchConfig{}), `{"action":"fetch","url":"`+srv.URL+`/posts/context"}`)
	if err != nil || !res.Success {
		t.Fatalf("fetch: %v %+v", err, res)
	}
	f := decode[Fetched](t, res)
	if f.Title != "Context cancellation in Go | Example Engineering Blog" || f.CanonicalURL != "https://blog.example.com/posts/context-cancellation" {
		t.Errorf("title %q canonical %q", f.Title, f.CanonicalURL)
	}
	mustContain(t, f.Content, "# Context cancellation in Go", "## Deriving contexts", "`context.Context`",
		"ctx, cancel := context.WithTimeout(parent, 2*time.Second)", "| WithCancel  | cancel is called   |",
		"**first**", "["+"WithCancel]("+srv.URL+"/docs/withcancel)", "(https://pkg.go.dev/context#WithTimeout)")
	mustNotContain(t, f.Content, "dataLayer", "tracking pixel", "font-family", "All posts", "Popular posts",
		"All rights reserved", "Subscribe", "Skip to content")
	if f.Format != "markdown" || f.Status != 200 || f.Truncated {
		t.Errorf("receipt %+v", f)
	}
}

// README.md "Web and GitHub": fetch also returns text or raw.
func TestFetchTextAndRawFormats(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(fixture(t, "article.html"))
	})
	tool := newTool(loopbackAllowed(), SearchConfig{})
	res, _, _ := call(t, tool, `{"action":"fetch","url":"`+srv.URL+`","format":"text"}`)
	text := decode[Fetched](t, res).Content
	mustContain(t, text, "Context cancellation in Go\n", "Always call cancel.")
	mustNotContain(t, text, "<p>", "# ", "dataLayer")
	res, _, _ = call(t, tool, `{"action":"fetch","url":"`+srv.URL+`","format":"raw"}`)
	mustContain(t, decode[Fetched](t, res).Content, "<script>window.dataLayer", "<nav aria-label")
}

// A page the HTML parser refuses (nested deeper than its limit of 512) is
// not handed over as raw HTML under another format's name: its hidden
// parts would reach the model unmarked. The error says how to read it.
// CONTRACT.md §6.10: a page nested past the parser's limit fails in markdown and text naming format=raw.
// README.md "Web and GitHub": a page nested deeper than 512 levels fails in markdown and text and is read with format=raw.
func TestFetchOfAPageTheParserRefuses(t *testing.T) {
	t.Parallel()
	page := strings.Repeat("<div>", 600) + `<p hidden>hidden instructions</p>visible`
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(page))
	})
	tool := newTool(loopbackAllowed(), SearchConfig{})
	for _, format := range []string{"markdown", "text"} {
		res, _, err := call(t, tool, `{"action":"fetch","url":"`+srv.URL+`","format":"`+format+`"}`)
		if err == nil || !strings.Contains(err.Error(), "format=raw") || !strings.Contains(err.Error(), "512") {
			t.Errorf("%s: %v %+v", format, err, res)
		}
		if strings.Contains(res.Content, "hidden instructions") {
			t.Errorf("%s: the hidden text was returned: %s", format, res.Content)
		}
	}
	res, _, err := call(t, tool, `{"action":"fetch","url":"`+srv.URL+`","format":"raw"}`)
	if err != nil || !strings.Contains(decode[Fetched](t, res).Content, "<p hidden>") {
		t.Errorf("raw: %v %+v", err, res)
	}
}

// README.md "Web and GitHub": fetch follows at most 5 redirects.
func TestFetchRedirects(t *testing.T) {
	t.Parallel()
	var srvURL string
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Path, "/hop/%d", &n)
		if n > 0 {
			http.Redirect(w, r, fmt.Sprintf("%s/hop/%d", srvURL, n-1), http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("arrived"))
	})
	srvURL = srv.URL
	tool := newTool(loopbackAllowed(), SearchConfig{})
	res, _, err := call(t, tool, `{"action":"fetch","url":"`+srv.URL+`/hop/5"}`)
	if err != nil || decode[Fetched](t, res).Content != "arrived" || decode[Fetched](t, res).FinalURL != srv.URL+"/hop/0" {
		t.Fatalf("5 redirects: %v %s", err, res.Content)
	}
	_, _, err = call(t, tool, `{"action":"fetch","url":"`+srv.URL+`/hop/6"}`)
	if err == nil || !strings.Contains(err.Error(), "stopped after 5 redirects") {
		t.Fatalf("6 redirects: %v", err)
	}
}

func TestFetchRedirectToDeniedHostIsRefused(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://metadata.internal.test/latest", http.StatusFound)
	})
	p := loopbackAllowed()
	p.Deny = []string{".internal.test"}
	_, _, err := call(t, newTool(p, SearchConfig{}), `{"action":"fetch","url":"`+srv.URL+`"}`)
	if err == nil || !strings.Contains(err.Error(), "redirect to http://metadata.internal.test/latest refused: network policy denies metadata.internal.test") {
		t.Fatalf("got %v", err)
	}
}

func TestFetch404IsAFailureWithItsBody(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(404)
		w.Write([]byte(`{"message":"Not Found"}`))
	})
	res, _, err := call(t, newTool(loopbackAllowed(), SearchConfig{}), `{"action":"fetch","url":"`+srv.URL+`/missing"}`)
	f := decode[Fetched](t, res)
	if err != nil || res.Success || f.Status != 404 || f.Content != `{"message":"Not Found"}` {
		t.Fatalf("%v %+v", err, res)
	}
}

// README.md "Web and GitHub": fetch reads 1 MB by default and keeps more than 20,000 characters behind a handle.
func TestFetchHugeBodyStopsAtMaxBytes(t *testing.T) {
	t.Parallel()
	var written atomic.Int64
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", fmt.Sprint(50<<20))
		chunk := []byte(strings.Repeat("x", 64<<10))
		for i := 0; i < (50<<20)/len(chunk); i++ {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	res, _, err := call(t, newTool(loopbackAllowed(), SearchConfig{}), `{"action":"fetch","url":"`+srv.URL+`"}`)
	f := decode[Fetched](t, res)
	if err != nil || !f.Truncated || f.BytesRead != 1_000_000 || f.TotalBytes != 50<<20 {
		t.Fatalf("%v %+v", err, f.Note)
	}
	if h, ok := f.Handle.(map[string]any); !ok || h["session_id"] == "" {
		t.Errorf("a 1 MB page should sit behind a handle: %v", f.Handle)
	}
	if len([]rune(f.Content)) != inlineLimit {
		t.Errorf("inline content %d chars", len(f.Content))
	}
	srv.CloseClientConnections()
	if n := written.Load(); n > 20<<20 {
		t.Errorf("the server wrote %d bytes: the client kept reading past max_bytes", n)
	}
}

func TestFetchSlowBodyTimesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("first bytes"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	start := time.Now()
	_, _, err := call(t, newTool(loopbackAllowed(), SearchConfig{}), `{"action":"fetch","url":"`+srv.URL+`","timeout_ms":300}`)
	if err == nil || !strings.Contains(err.Error(), "timed out after 300ms") {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}

// README.md "Web and GitHub": fetch projects JSON bodies with fields (JSONPath).
func TestFetchJSONFields(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.github+json")
		w.Write([]byte(`{"total_count":2,"items":[{"name":"alpha","stars":10},{"name":"beta","stars":3}]}`))
	})
	tool := newTool(loopbackAllowed(), SearchConfig{})
	res, _, err := call(t, tool, `{"action":"fetch","url":"`+srv.URL+`","fields":["$.items[*].name","$.total_count","$.items[?@.stars > 5].name","$.nothing"]}`)
	if err != nil {
		t.Fatal(err)
	}
	f := decode[Fetched](t, res)
	got := fmt.Sprint(f.Fields["$.items[*].name"], f.Fields["$.total_count"], f.Fields["$.items[?@.stars > 5].name"], f.Fields["$.nothing"])
	if got != "[alpha beta] [2] [alpha] []" {
		t.Fatalf("fields %s", got)
	}
	_, _, err = call(t, tool, `{"action":"fetch","url":"`+srv.URL+`","fields":["items[("]}`)
	if err == nil || !strings.Contains(err.Error(), "is not a JSONPath expression") {
		t.Fatalf("bad path: %v", err)
	}
}

// README.md "Web and GitHub": fetch decodes the page's charset.
func TestFetchDecodesLatin1(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=ISO-8859-1")
		w.Write(fixture(t, "latin1.html"))
	})
	res, _, _ := call(t, newTool(loopbackAllowed(), SearchConfig{}), `{"action":"fetch","url":"`+srv.URL+`","format":"text"}`)
	f := decode[Fetched](t, res)
	if f.Title != "Café" || !strings.Contains(f.Content, "Français: café crème brûlée à la carte") {
		t.Fatalf("%q %q", f.Title, f.Content)
	}
}

// README.md "Web and GitHub": fetch extracts PDF text with pdftotext.
func TestFetchPDF(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(fixture(t, "report.pdf"))
	})
	tool := newTool(loopbackAllowed(), SearchConfig{})
	if _, err := lookPDF(); err != nil {
		tool.opts.PDFToText = ""
	}
	res, _, err := call(t, tool, `{"action":"fetch","url":"`+srv.URL+`/report.pdf"}`)
	if err != nil {
		t.Fatal(err)
	}
	f := decode[Fetched](t, res)
	if _, err := lookPDF(); err == nil {
		if f.Content != "Quarterly report: revenue grew 12 percent" {
			t.Errorf("pdf text %q (%s)", f.Content, f.Note)
		}
	}
	missing := newTool(loopbackAllowed(), SearchConfig{})
	missing.opts.PDFToText = filepath.Join(t.TempDir(), "no-pdftotext")
	res, _, _ = call(t, missing, `{"action":"fetch","url":"`+srv.URL+`/report.pdf"}`)
	if f := decode[Fetched](t, res); f.Content != "" || !strings.Contains(f.Note, "pdftotext could not read it") {
		t.Errorf("without pdftotext: %+v", f)
	}
}

// CONTRACT.md §6.10: binary bodies are refused.
// README.md "Web and GitHub": fetch refuses binary content with its type and size.
func TestFetchRefusesBinary(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 2040)...))
	})
	_, _, err := call(t, newTool(loopbackAllowed(), SearchConfig{}), `{"action":"fetch","url":"`+srv.URL+`/logo.png"}`)
	if err == nil || !strings.Contains(err.Error(), "returned binary content (image/png, 2048 bytes)") {
		t.Fatalf("got %v", err)
	}
}

// CONTRACT.md §6.10: the exact only-http(s) text and the schema's refusal of an unknown format.
func TestFetchInputErrors(t *testing.T) {
	t.Parallel()
	tool := newTool(nil, SearchConfig{})
	for in, want := range map[string]string{
		`{"url":"https://example.com"}`:                       "Web requires an `action` parameter; nothing was run. Pass one of: search, fetch, wait.",
		`{"action":"browse"}`:                                 `Unknown Web action "browse"; nothing was run. Pass one of: search, fetch, wait.`,
		`{"action":"fetch","url":"ftp://x"}`:                  "only http:// and https:// URLs are supported",
		`{"action":"fetch","url":"file:///etc/passwd"}`:       "only http:// and https:// URLs are supported",
		`{"action":"fetch","url":"https://x","format":"pdf"}`: "at /format: value must be one of \"markdown\", \"text\", \"raw\"",
	} {
		_, _, err := call(t, tool, in)
		if err == nil || !strings.Contains(tools.AsError(err).Render(ToolName), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}

func lookPDF() (string, error) {
	for _, dir := range strings.Split(os.Getenv("PATH"), string(os.PathListSeparator)) {
		p := filepath.Join(dir, "pdftotext")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

var _ = netpolicy.Allow

// A page larger than the call's budget comes back inside the budget, as
// valid JSON, with the rest readable through handle_read.
func TestFetchFitsTheBudgetAndHandleReadsTheRest(t *testing.T) {
	t.Parallel()
	para := strings.Repeat(`He said "ok" & left.`+"\n", 4000) // quotes and newlines grow under JSON escaping
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(para))
	})
	store := handles.NewStore(0)
	tool := New(Options{Policy: loopbackAllowed(), Handles: store})
	reg := tools.NewRegistry()
	reg.Register(tool)
	c, err := reg.Prepare(ToolName, []byte(`{"action":"fetch","url":"`+srv.URL+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Run(context.Background(), &tools.Context{Budget: 12000})
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(res.Content)); n > 12000 {
		t.Fatalf("result is %d characters, over the 12000 budget", n)
	}
	f := decode[Fetched](t, res)
	h, _ := f.Handle.(map[string]any)
	sid, _ := h["session_id"].(string)
	read := handles.NewRead(store)
	got, err := read.Execute(context.Background(), &tools.Context{}, []byte(`{"session_id":"`+sid+`","offset":6000,"limit":100}`))
	if err != nil || !strings.HasPrefix(got.Content, "["+sid+" characters 6000-6100 of 84000]") {
		t.Fatalf("handle_read: %v %q", err, got.Content[:min(200, len(got.Content))])
	}
	if body := got.Content[strings.IndexByte(got.Content, '\n')+1:]; body != string([]rune(para)[6000:6100]) {
		t.Errorf("handle_read returned the wrong slice: %q", body)
	}
}

// pdftotext gets the environment a Bash command gets: a stand-in that
// prints its environment as the PDF's text never shows the agent's key.
func TestFetchPDFExtractorGetsTheScrubbedEnvironment(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", "sk-canary-pdftotext")
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.4\n"))
	})
	tool := newTool(loopbackAllowed(), SearchConfig{})
	tool.opts.PDFToText = filepath.Join(t.TempDir(), "pdftotext")
	if err := os.WriteFile(tool.opts.PDFToText, []byte("#!/bin/sh\nenv\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, _, err := call(t, tool, `{"action":"fetch","url":"`+srv.URL+`/a.pdf"}`)
	if err != nil {
		t.Fatal(err)
	}
	f := decode[Fetched](t, res)
	if !strings.Contains(f.Content, "PATH=") || strings.Contains(f.Content, "sk-canary") {
		t.Errorf("pdftotext's environment: %q", f.Content)
	}
}
