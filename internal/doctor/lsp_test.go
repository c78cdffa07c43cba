package doctor

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// README.md "Language servers": codewhale doctor lists which servers are present.
func TestLSPCheck(t *testing.T) {
	t.Parallel()
	r := Run(context.Background(), Options{LSP: func() (LSPReport, error) {
		return LSPReport{Enabled: true, Servers: []LSPServer{
			{Name: "zls", Files: ".zig", Why: "zls not found on PATH"},
			{Name: "gopls", Files: "go", Found: true, Path: "/usr/bin/gopls", Builtin: true},
			{Name: "clangd", Files: "c, cpp", Why: "clangd not found on PATH", Builtin: true},
		}}, nil
	}})
	for name, want := range map[string]struct {
		status Status
		detail string
	}{
		"lsp zls":    {Warn, "zls not found on PATH"},
		"lsp gopls":  {OK, "/usr/bin/gopls (go)"},
		"lsp clangd": {OK, "not installed: c, cpp files are not checked"},
	} {
		if c := find(r, name); c.Status != want.status || !strings.Contains(c.Detail, want.detail) {
			t.Errorf("%s = %+v, want %s %q", name, c, want.status, want.detail)
		}
	}
	r = Run(context.Background(), Options{LSP: func() (LSPReport, error) { return LSPReport{}, nil }})
	if c := find(r, "lsp"); c.Status != OK || !strings.Contains(c.Detail, "enabled = false") {
		t.Errorf("disabled: %+v", c)
	}
	r = Run(context.Background(), Options{LSP: func() (LSPReport, error) { return LSPReport{}, errors.New("bad table") }})
	if c := find(r, "lsp"); c.Status != Fail || r.OK {
		t.Errorf("a bad table: %+v", c)
	}
}
