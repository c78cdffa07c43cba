//go:build unix

package lsptool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/tools"
)

// CONTRACT.md §6.13: refusals — outside the workspace PathEscape, a secret PermissionDenied, a positioned action
// with neither column nor symbol (or both, or a symbol not on the line) InvalidInput, max_results outside 1..200
// InvalidInput — and a path that is no regular file is refused by the confined reader at once (a FIFO under a
// source name never hangs the call).
func TestContractLSPRefusals(t *testing.T) {
	t.Parallel()
	e := newGoplsEnv(t)
	outside := filepath.Join(t.TempDir(), "x.go")
	if err := os.WriteFile(outside, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.ws, ".env"), []byte("TOKEN=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(e.ws, "pipe.go")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// A writer that holds the FIFO open and never writes: a blocking read
	// of it would wait for ever.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, c := range []struct {
		in   string
		kind tools.ErrorKind
		want string
	}{
		{`{"action":"symbols","path":"` + outside + `"}`, tools.KindPathEscape, "Path escapes workspace"},
		{`{"action":"diagnostics","path":".env"}`, tools.KindPermissionDenied, "it is not sent to a language server"},
		{`{"action":"hover","path":"list.go","line":15}`, tools.KindInvalidInput, "needs the symbol's column"},
		{`{"action":"hover","path":"list.go","line":15,"column":6,"symbol":"Element"}`, tools.KindInvalidInput, "not both"},
		{`{"action":"definition","path":"list.go","line":15,"symbol":"Nowhere"}`, tools.KindInvalidInput, `"Nowhere" does not occur on line 15`},
		{`{"action":"references","path":"list.go","line":15,"column":6,"max_results":0}`, tools.KindInvalidInput, "max_results"},
		{`{"action":"references","path":"list.go","line":15,"column":6,"max_results":201}`, tools.KindInvalidInput, "max_results"},
		{`{"action":"symbols","path":"pipe.go"}`, tools.KindExecutionFailed, "it is not a regular file"},
	} {
		done := make(chan error, 1)
		go func() { _, err := tools.Execute(context.Background(), e.tool, e.tc, []byte(c.in)); done <- err }()
		var err error
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			t.Errorf("%s: the call hung", c.in)
			continue
		}
		if errKind(err) != c.kind || !strings.Contains(tools.AsError(err).Render(Name), c.want) {
			t.Errorf("%s: got %v (kind %v), want kind %v containing %q", c.in, err, errKind(err), c.kind, c.want)
		}
	}
	if err := os.WriteFile(filepath.Join(e.ws, "notes.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := e.call(t, map[string]any{"action": "symbols", "path": "notes.txt"})
	if want := "lsp: no language server takes notes.txt here (/lsp lists the servers and the files they take); nothing was asked"; res.Success || res.Content != want {
		t.Errorf("a file no server takes: %+v, want %q", res, want)
	}
}
