package web

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// standInPdftotext puts a pdftotext that prints about 300 MB (through a
// pipeline, so killing the shell leaves its children holding the pipe)
// first on PATH, in a directory outside the workspace. Not parallel.
func standInPdftotext(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nyes 'PDF text line that goes on and on' | head -c 300000000\n"
	if err := os.WriteFile(filepath.Join(dir, "pdftotext"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// CONTRACT.md §6.10: a PDF's extracted text is bounded by max_bytes as
// every other body is: a converter that prints far more is stopped at the
// bound, quickly, and the fetch says the text was cut.
func TestFetchPDFTextIsCutAtMaxBytes(t *testing.T) {
	standInPdftotext(t)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(fixture(t, "report.pdf"))
	})
	for _, maxBytes := range []string{"", `,"max_bytes":50000`} {
		tool := newTool(loopbackAllowed(), SearchConfig{})
		start := time.Now()
		res, _, err := call(t, tool, `{"action":"fetch","url":"`+srv.URL+`/report.pdf"`+maxBytes+`}`)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("max_bytes %q: the fetch took %s", maxBytes, d)
		}
		f := decode[Fetched](t, res)
		if !f.Truncated || !strings.Contains(f.Note, "it was cut at max_bytes") ||
			!strings.HasPrefix(f.Content, "PDF text line") || res.Metadata["truncated"] != true {
			t.Errorf("max_bytes %q: truncated %v, note %q, content %.40q", maxBytes, f.Truncated, f.Note, f.Content)
		}
	}
	tool := newTool(loopbackAllowed(), SearchConfig{})
	text, note, cut := tool.pdfText(context.Background(), t.TempDir(), fixture(t, "report.pdf"), 50_000)
	if !cut || len(text) > 50_000 || len(text) < 49_000 || !strings.Contains(note, "cut at max_bytes (50000 bytes of text)") {
		t.Errorf("pdfText: cut %v, %d bytes, note %q", cut, len(text), note)
	}
}
