package skill

import (
	"testing"

	"github.com/codewhale/codewhale/internal/canonjson"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// load_skill's published schema and decoder agree, and the derived schema
// is byte for byte the one written by hand before the type existed
// (load_skill is deferred and outside toolset's schemas.golden).
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	c := projectctx.Load(projectctx.Options{Workspace: t.TempDir()})
	tool := New(c.State, t.TempDir())
	paramtest.Agree(t, paramtest.Case{Tool: tool})
	got, err := canonjson.Append(nil, tool.InputSchema())
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"properties":{"file":{"description":"A file of the skill's folder, as load_skill lists them.","type":"string"},` +
		`"name":{"description":"The skill's name, as listed.","type":"string"}},"required":["name"],"type":"object"}`
	if string(got) != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
}
