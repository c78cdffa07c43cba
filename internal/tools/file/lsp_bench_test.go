package file

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/tools"
)

// managerDiagnostics is the toolset's adapter, repeated here (toolset
// imports this package).
type managerDiagnostics struct{ m *lsp.Manager }

func (d managerDiagnostics) Read(abs string, text []byte) { d.m.Opened(abs, text) }

func (d managerDiagnostics) Changed(ctx context.Context, cs []FileChange) string {
	out := make([]lsp.Change, len(cs))
	for i, c := range cs {
		out[i] = lsp.Change{Path: c.Path, Before: c.Before, After: c.After, Deleted: c.Deleted}
	}
	return d.m.Changed(ctx, out)
}

// BenchmarkEditWithoutAServer is a File edit of a file no language server
// takes, without the servers and with them (the built-in set, as a session
// has it): the second costs what routing the path costs and nothing more
// (docs/PERFORMANCE.md, "Language servers").
func BenchmarkEditWithoutAServer(b *testing.B) {
	servers, _ := lsp.Merge(nil)
	m := lsp.New(lsp.Options{Config: lsp.Config{Enabled: true, Servers: servers}, LookPath: exec.LookPath})
	defer m.Close()
	for _, c := range []struct {
		name string
		diag Diagnostics
	}{{"off", nil}, {"on", managerDiagnostics{m}}} {
		b.Run(c.name, func(b *testing.B) {
			ws := tools.Canonical(b.TempDir())
			if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("alpha\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			reg := tools.NewRegistry()
			reg.Register(New(Options{Writable: true, Diagnostics: c.diag}))
			tc := &tools.Context{Workspace: ws}
			run := func(in string) tools.Result {
				res, err := reg.Execute(context.Background(), tc, Name, json.RawMessage(in))
				if err != nil || !res.Success || strings.Contains(res.Content, "LSP") {
					b.Fatalf("%s: %v %s", in, err, res.Content)
				}
				return res
			}
			run(`{"action":"read","path":"notes.txt"}`)
			words := []string{"alpha", "beta"}
			for i := 0; b.Loop(); i++ {
				run(`{"action":"edit","path":"notes.txt","search":"` + words[i%2] + `","replace":"` + words[(i+1)%2] + `"}`)
			}
		})
	}
	if len(m.Status()) != 0 {
		b.Fatal("a server started for a text file")
	}
}
