package toolset_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/canonjson"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools/rlm"
	"github.com/codewhale/codewhale/internal/tools/web"
)

var update = flag.Bool("update", false, "rewrite testdata/schemas.golden and ../tools/schemas_gen.go")

// Every built-in tool's published input schema, in every registry shape
// (Plan, Act, Act without apply_patch), is pinned in canonical JSON (the
// digest's input): a schema derived from a Go type must be byte-identical
// to the one it replaces, and a deliberate change shows up here, in review.
func TestPublishedSchemasGolden(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	for _, shape := range []struct {
		name  string
		mode  posture.Mode
		patch bool
	}{{"plan", posture.Plan, true}, {"act", posture.Act, true}, {"act-no-patch", posture.Act, false}} {
		s := services(t, true)
		s.ApplyPatch = shape.patch
		s.Web = web.New(web.Options{})
		s.RLM = rlm.New(rlm.Options{})
		s.LSP = lsp.New(lsp.Options{Config: lsp.Config{Enabled: true}})
		store, err := auto.Open(filepath.Join(t.TempDir(), "automations"))
		if err != nil {
			t.Fatal(err)
		}
		s.Automations = store
		reg := s.Registry(engine.TurnEnv{Mode: shape.mode, AllowShell: true})
		for _, tool := range reg.Tools() {
			b, err := canonjson.Append(nil, tool.InputSchema())
			if err != nil {
				t.Fatalf("%s: %v", tool.Name(), err)
			}
			out.WriteString(shape.name + " " + tool.Name() + " ")
			out.Write(b)
			out.WriteByte('\n')
		}
	}
	golden := filepath.Join("testdata", "schemas.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		gl, wl := bytes.Split(out.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := range max(len(gl), len(wl)) {
			var g, w []byte
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if !bytes.Equal(g, w) {
				t.Errorf("schema line %d differs:\n got %s\nwant %s", i+1, g, w)
			}
		}
	}
}
