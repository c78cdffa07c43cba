package tui

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// /lsp lists the servers with their state and why one failed, the ones not
// started and not installed; /lsp restart stops them off the UI goroutine.
// README.md "Language servers": /lsp shows what the servers are doing.
// README.md "Slash commands": /lsp lists the language servers with state and last error
func TestLSPCommand(t *testing.T) {
	t.Parallel()
	falseBin, err := exec.LookPath("false")
	if err != nil {
		e2e.Missing(t, "false(1) is not installed")
	}
	ws := t.TempDir()
	m := lsp.New(lsp.Options{Config: lsp.Config{Enabled: true, Wait: 5 * time.Second, Servers: []lsp.Server{
		{Name: "quitter", Command: falseBin, Extensions: []string{".go"}},
		{Name: "idle", Command: falseBin, Extensions: []string{".sh"}},
		{Name: "ghost", Command: "codewhale-no-such-server", Extensions: []string{".py"}},
	}}, Workspace: ws, LookPath: exec.LookPath})
	defer m.Close()
	if got := m.Changed(context.Background(), []lsp.Change{{Path: filepath.Join(ws, "a.go"), After: []byte("package a\n")}}); !strings.Contains(got, "quitter") {
		t.Fatalf("the failing server was not tried: %q", got)
	}
	d := newDirect(t, 140, 40, func(o *Options) { o.LSP = m })
	d.submit("/lsp")
	d.mustShow("Language servers (an edit waits up to 5s for its diagnostics):", "quitter  failed  "+ws+" (0 open)",
		"it exited: exit status 1", "Not started yet (each starts with the first file of its language): idle (.sh)",
		"Not installed: ghost (codewhale-no-such-server not found on PATH)")
	d.runCmd(d.submit("/lsp restart quitter"))
	d.mustShow("Stopped quitter (1); the next file of its language starts it again.")
	d.submit("/lsp bogus")
	d.mustShow("Usage: /lsp [list|restart [name]]")
	off := newDirect(t, 100, 20)
	off.submit("/lsp")
	off.mustShow("Language servers are off ([lsp] enabled = false in config.toml)")
}
