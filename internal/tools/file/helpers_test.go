package file

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// env is a workspace in a temp dir with a File tool registered the way the
// engine registers it, so calls go through the registry's Prepare (one
// decode) and the prepared call's Run.
type env struct {
	t    *testing.T
	ws   string
	tc   *tools.Context
	tool *Tool
	reg  *tools.Registry
}

var writable = Options{Writable: true, Patch: true}

func newEnv(t *testing.T, opts Options) *env {
	t.Helper()
	ws := tools.Canonical(t.TempDir())
	if opts.ReadStamps == nil {
		opts.ReadStamps = NewReadStamps()
	}
	tool := New(opts)
	reg := tools.NewRegistry()
	reg.Register(tool)
	if tool.can("patch") {
		reg.Register(NewApplyPatch(opts))
	}
	return &env{t: t, ws: ws, tc: &tools.Context{Workspace: ws}, tool: tool, reg: reg}
}

// call runs a File call given as JSON text.
func (e *env) call(in string) (tools.Result, error) {
	e.t.Helper()
	return e.reg.Execute(context.Background(), e.tc, Name, json.RawMessage(in))
}

// callOK runs a call that must succeed and returns its content.
func (e *env) callOK(in string) tools.Result {
	e.t.Helper()
	res, err := e.call(in)
	if err != nil {
		e.t.Fatalf("call %s: unexpected error: %s", in, errText(err))
	}
	if !res.Success {
		e.t.Fatalf("call %s: result not successful: %s", in, res.Content)
	}
	return res
}

// callErr runs a call that must be refused and returns the text the model sees.
func (e *env) callErr(in string) string {
	e.t.Helper()
	res, err := e.call(in)
	if err == nil {
		e.t.Fatalf("call %s: expected an error, got result %q", in, res.Content)
	}
	return errText(err)
}

// errText is the rendered error as the model sees it (without feedback).
func errText(err error) string { return tools.AsError(err).Render(Name) }

func (e *env) path(rel string) string { return filepath.Join(e.ws, rel) }

func (e *env) put(rel, content string) string {
	e.t.Helper()
	p := e.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) get(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(e.path(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// js renders v as JSON for building call inputs.
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func decode[T any](t *testing.T, text string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("content is not the expected JSON: %v\n%s", err, text)
	}
	return v
}

func mustContain(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
}

// policyOf is the policy the registry decides for in.
func policyOf(t *testing.T, tool tools.Tool, in json.RawMessage) tools.Policy {
	t.Helper()
	c, err := tools.PrepareCall(tool, in)
	if err != nil {
		t.Fatalf("prepare %s: %v", in, err)
	}
	return c.Policy
}
