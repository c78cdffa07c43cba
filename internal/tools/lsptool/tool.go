// Package lsptool is the deferred `lsp` tool (CONTRACT.md §6.13): the
// session's language servers (internal/lsp) asked about a workspace file —
// its diagnostics, a symbol's definition, references and hover text, the
// file's or the workspace's symbols, and the edit a rename would make,
// shown and never applied. Positions are 1-based, columns count
// characters, paths are workspace-relative; the file named goes through
// the File tool's boundary (tools.Context.ResolvePath, then confine).
package lsptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// Name is the tool's name.
const Name = "lsp"

// askTimeout bounds one question, a server's start included.
const askTimeout = 45 * time.Second

// Tool is the lsp tool over the session's servers.
type Tool struct {
	tools.Spec
	servers *lsp.Manager
	wait    time.Duration // bounds one question; askTimeout unless a test shortens it
}

// New returns the tool over m.
func New(m *lsp.Manager) *Tool {
	return &Tool{servers: m, wait: askTimeout, Spec: tools.Spec{
		ToolName: Name,
		Desc: "Code intelligence from language servers: diagnostics, definitions, references, hover, symbols, renames. " +
			"Asks the server of the file at path (gopls, pyright, typescript-language-server, " +
			"rust-analyzer or clangd, when installed): diagnostics (the file's errors and warnings now), definition, " +
			"references and hover (of the symbol at line and column, or line and its name as symbol), symbols (the " +
			"file's, or the workspace's matching query), rename_preview (the diff renaming to new_name would make; " +
			"nothing is applied). Lines and columns are 1-based, columns count characters; paths are workspace-relative.",
		SchemaFunc: params.Schema,
		Caps:       []tools.Capability{tools.CapReadOnly},
		Deferred:   true,
		Approve:    tools.Auto,
		ReadOnly:   true,
		Parallel:   true,
	}}
}

// Prepare decodes the call once (ARCHITECTURE.md §6.3).
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := params.Decode(raw)
	if err != nil {
		return nil, err
	}
	return tools.NewCall(d.Input(), t.StaticPolicy(), func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		res, err := t.run(ctx, tc, d)
		return tools.Sized(res, err, tc, "ask with a smaller max_results, or a narrower query")
	}), nil
}

// Execute decodes and runs one call (tools.Execute).
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

// ask is one decoded call with its file read.
type ask struct {
	d      *tools.Decoded[input]
	tc     *tools.Context
	target lsp.Target
	limit  int
}

func (t *Tool) run(ctx context.Context, tc *tools.Context, d *tools.Decoded[input]) (tools.Result, error) {
	a, err := t.open(tc, d)
	if err != nil {
		return tools.Result{}, err
	}
	if t.servers.Server(a.target.Path) == "" {
		if missing := t.servers.Missing(a.target.Path); missing != "" {
			return tools.Failed(fmt.Sprintf("lsp: the language server for %s is not installed: %s; nothing was asked",
				d.In.Path, missing)), nil
		}
		return tools.Failed(fmt.Sprintf("lsp: no language server takes %s here (/lsp lists the servers and the files "+
			"they take); nothing was asked", d.In.Path)), nil
	}
	ctx, cancel := context.WithTimeout(ctx, t.wait)
	defer cancel()
	var text string
	switch d.Action {
	case "diagnostics":
		text, err = t.diagnostics(ctx, a)
	case "definition", "references":
		text, err = t.locate(ctx, a)
	case "hover":
		text, err = t.hover(ctx, a)
	case "symbols":
		text, err = t.symbols(ctx, a)
	case "rename_preview":
		text, err = t.rename(ctx, a)
	}
	if err != nil {
		return tools.Failed(failure(t.servers.Server(a.target.Path), d.Action, t.wait, err)), nil
	}
	return tools.OK(text), nil
}

// failure is what the model reads when the server could not answer: one
// of the two exact forms of CONTRACT.md §6.13, a timeout included.
func failure(server, action string, wait time.Duration, err error) string {
	var un *lsp.Unsupported
	switch {
	case errors.As(err, &un):
		return "lsp: " + un.Error() + "; nothing was asked"
	case errors.Is(err, context.DeadlineExceeded):
		err = fmt.Errorf("it did not answer within %v", wait)
	}
	return fmt.Sprintf("lsp: %s could not answer %s: %v", server, action, err)
}

// open resolves the call's path through the workspace boundary, refuses a
// secret, and reads the file beneath its root with no link followed, as
// File reads it; the server is asked about exactly that text.
func (t *Tool) open(tc *tools.Context, d *tools.Decoded[input]) (*ask, error) {
	abs, err := tc.ResolvePath(d.In.Path)
	if err != nil {
		return nil, err
	}
	if reason, secret := secrets.IsSecretPath(abs); secret {
		return nil, tools.PermissionDenied("lsp: %s is a secret (%s); it is not sent to a language server", d.In.Path, reason)
	}
	text, err := readConfined(tc, abs)
	if err != nil {
		return nil, tools.ExecutionFailed("lsp: cannot read %s: %v", d.In.Path, err)
	}
	a := &ask{d: d, tc: tc, target: lsp.Target{Path: abs, Text: text, Line: d.In.Line, Col: d.In.Column}, limit: defaultMaxResults}
	if d.Has("max_results") {
		a.limit = d.In.MaxResults
	}
	if err := a.positionOf(string(text)); err != nil {
		return nil, err
	}
	return a, nil
}

// positionOf fills the target's column from symbol, and refuses a
// positioned action given neither column nor symbol.
func (a *ask) positionOf(text string) error {
	switch a.d.Action {
	case "definition", "references", "hover", "rename_preview":
	default:
		return nil
	}
	if a.d.Has("column") {
		return nil
	}
	if a.d.In.Symbol == "" {
		return tools.InvalidInput("lsp %s needs the symbol's column (1-based) or its name as symbol on line %d; nothing was asked",
			a.d.Action, a.d.In.Line)
	}
	col, err := symbolColumn(text, a.d.In.Line, a.d.In.Symbol)
	a.target.Col = col
	return err
}

// maxFileBytes bounds a file the tool reads (as internal/lsp bounds what it
// sends).
const maxFileBytes = 4 << 20

// readConfined reads abs through the one confined reader the File tool
// uses (confine.ReadFile: beneath the call's roots, through no symbolic
// link, the secret guard again, regular files only, so a FIFO planted
// under a source name cannot hang the call), refusing a file over
// maxFileBytes.
func readConfined(tc *tools.Context, abs string) ([]byte, error) {
	data, fi, err := confine.ReadFile(tc.Roots(), abs, maxFileBytes+1)
	switch {
	case fi != nil && fi.IsDir():
		return nil, errors.New("it is a directory; name a source file")
	case errors.Is(err, confine.ErrNotRegular):
		return nil, errors.New("it is not a regular file; name a source file")
	case err != nil:
		return nil, err
	case fi.Size() > maxFileBytes:
		return nil, fmt.Errorf("it is %d bytes, over the %d a language server is sent", fi.Size(), maxFileBytes)
	}
	return data, nil
}

// symbolColumn is the 1-based character column of sym's first occurrence
// on line.
func symbolColumn(text string, line int, sym string) (int, error) {
	lines := strings.Split(text, "\n")
	if line > len(lines) {
		return 0, tools.InvalidInput("lsp: line %d is past the end of the file (%d lines); nothing was asked", line, len(lines))
	}
	l := lines[line-1]
	i := strings.Index(l, sym)
	if i < 0 {
		return 0, tools.InvalidInput("lsp: %q does not occur on line %d (%q); give its column instead; nothing was asked",
			sym, line, clip(strings.TrimSpace(l), 120))
	}
	return len([]rune(l[:i])) + 1, nil
}

// clip is s cut to at most n characters, the last of them "…" when cut.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
