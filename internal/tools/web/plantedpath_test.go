package web

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/plantedbin"
	"github.com/codewhale/codewhale/internal/tools"
)

// A pdftotext the workspace put on PATH (.venv/bin, which a File patch can
// fill) never reads a fetched PDF: a fetch may run without asking. Not
// parallel: it sets PATH.
func TestPlantedPdftotextIsNotRun(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(fixture(t, "report.pdf"))
	})
	ws := t.TempDir()
	real, realErr := lookPDF()
	ran := plantedbin.Plant(t, ws, "pdftotext")
	reg := tools.NewRegistry()
	reg.Register(newTool(loopbackAllowed(), SearchConfig{}))
	c, err := reg.Prepare(ToolName, json.RawMessage(`{"action":"fetch","url":"`+srv.URL+`/report.pdf"}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Run(context.Background(), &tools.Context{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if got := ran(); len(got) > 0 {
		t.Fatalf("the planted %v ran", got)
	}
	f := decode[Fetched](t, res)
	if realErr == nil && f.Content != "Quarterly report: revenue grew 12 percent" {
		t.Errorf("the real pdftotext (%s) did not read it: %q (%s)", real, f.Content, f.Note)
	}
}
