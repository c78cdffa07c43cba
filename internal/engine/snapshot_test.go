package engine

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// specTool is a registry entry built only from a Spec, for the CONTRACT.md §11.4 example.
type specTool struct{ tools.Spec }

func (specTool) Execute(context.Context, *tools.Context, json.RawMessage) (tools.Result, error) {
	return tools.OK("ok"), nil
}

func exampleRegistry(t *testing.T) (*tools.Registry, provider.Tool) {
	reg := tools.NewRegistry()
	fileSchema := schema(t, `{"type":"object","properties":{"path":{"type":"string"},"action":{"type":"string","enum":["read","list"]}},"required":["action"]}`)
	reg.Register(&specTool{tools.Spec{ToolName: "File", Desc: "Read and edit workspace files.", Schema: fileSchema,
		Caps: []tools.Capability{tools.CapReadOnly, tools.CapWritesFiles}, Approve: tools.Suggest}})
	reg.Register(&specTool{tools.Spec{ToolName: "Git", Desc: "git", Schema: schema(t, `{"type":"object"}`), Caps: []tools.Capability{tools.CapReadOnly}}})
	reg.Register(&specTool{tools.Spec{ToolName: "apply_patch", Desc: "alias", Schema: schema(t, `{"type":"object"}`), Hidden: true, Approve: tools.Suggest}})
	file := provider.Tool{Name: "File", Description: "Read and edit workspace files.", InputSchema: fileSchema,
		AllowedCallers: []string{"direct"}, DeferLoading: provider.Bool(false)}
	return reg, file
}

func TestSnapshotMatchesSpecExample(t *testing.T) {
	t.Parallel()
	reg, file := exampleRegistry(t)
	sc := NewSurfaceContext(reg, map[string]string{}, "DeepSeek", "deepseek-v4-pro", true)
	snap := CaptureSnapshot("0b7c9a52-3f4e-4d1a-9c2b-6e8f1a2b3c4d", 0, []provider.Tool{file}, sc)
	want, err := os.ReadFile("testdata/tools_example.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.JSON(); got != strings.TrimSuffix(string(want), "\n") {
		t.Errorf("snapshot JSON differs from CONTRACT.md §11.4:\n%s", got)
	}
}

// CONTRACT.md §11.5: Text is the read-only header and one fact per line, then each projected tool (golden).
func TestSnapshotTextGolden(t *testing.T) {
	t.Parallel()
	reg, file := exampleRegistry(t)
	sc := NewSurfaceContext(reg, map[string]string{"mcp_srv_echo": "srv"}, "DeepSeek", "deepseek-v4-pro", true)
	mcp := provider.Tool{Name: "mcp_srv_echo", Description: strings.Repeat("d", 600), InputSchema: map[string]any{"type": "object"},
		AllowedCallers: []string{"direct"}, DeferLoading: provider.Bool(true), Strict: provider.Bool(false)}
	snap := CaptureSnapshot("turn-1", 2, []provider.Tool{file, catalog.ToolSearchTool(), mcp}, sc)
	golden(t, "testdata/tools_text.golden", snap.Text())
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n%s", path, got)
	}
}

// CONTRACT.md §11.2: 32 tools projected with the omitted count, names cut at 256 runes, schema JSON at 2048 bytes,
// auxiliary strings at 512, unknown surface facts never guessed.
func TestSnapshotUnknownsAndBounds(t *testing.T) {
	t.Parallel()
	// No surface context: every surface fact is unknown, never guessed.
	many := make([]provider.Tool, 40)
	for i := range many {
		many[i] = provider.Tool{Name: strings.Repeat("n", 300), Description: "x", InputSchema: map[string]any{
			"type": "object", "description": strings.Repeat("é", 1500)}}
	}
	snap := CaptureSnapshot(strings.Repeat("t", 600), 1, many, nil)
	if snap.ToolCount != 40 || snap.RenderedToolCount != 32 || snap.OmittedToolCount != 8 || len(snap.Tools) != 32 {
		t.Errorf("counts %d %d %d", snap.ToolCount, snap.RenderedToolCount, snap.OmittedToolCount)
	}
	if !snap.TurnID.Truncated || len([]rune(snap.TurnID.Value)) != 512 {
		t.Error("turn id bound")
	}
	p := snap.Tools[0]
	if !p.Name.Truncated || len([]rune(p.Name.Value)) != 256 {
		t.Error("name bound")
	}
	if !p.InputSchemaJSON.Truncated || len(p.InputSchemaJSON.Value) < 2046 || !strings.HasSuffix(p.InputSchemaJSON.Value, "\uFFFD") && len(p.InputSchemaJSON.Value) != 2048 {
		t.Errorf("schema bound: %d bytes", len(p.InputSchemaJSON.Value))
	}
	if p.Provenance.Known || p.Provenance.Reason != "surface context not captured for this request" || p.Visibility != "in_request" {
		t.Errorf("provenance %+v visibility %s", p.Provenance, p.Visibility)
	}
	want := []string{"provider_wire_payload", "provider", "model", "approval", "provenance", "capabilities"}
	if strings.Join(snap.UnavailableForRequest, ",") != strings.Join(want, ",") {
		t.Errorf("unavailable %v", snap.UnavailableForRequest)
	}
	if !strings.Contains(snap.JSON(), `"provider": {
    "status": "unknown",
    "reason": "surface context not captured for this request"
  }`) {
		t.Error("provider must be {status: unknown, reason} without context")
	}
	// Absent is not empty.
	absent := CaptureSnapshot("t", 0, nil, nil)
	if absent.ToolsFieldPresent || absent.PayloadJSONBytes != nil || absent.ActiveToolCatalogSHA256 != nil ||
		absent.PayloadMeasurementStatus != "unavailable (tools field absent)" {
		t.Errorf("absent: %+v", absent)
	}
	empty := CaptureSnapshot("t", 0, []provider.Tool{}, nil)
	if !empty.ToolsFieldPresent || *empty.PayloadJSONBytes != 2 || *empty.ActiveToolCatalogSHA256 != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("empty: %+v", empty)
	}
	// Over the one-MiB measurement bound the byte count is unavailable but
	// the fixed-width digest is still there.
	huge := []provider.Tool{{Name: "big", InputSchema: map[string]any{"d": strings.Repeat("x", MaxPayloadMeasurementBytes)}}}
	hs := CaptureSnapshot("t", 0, huge, nil)
	if hs.PayloadJSONBytes != nil || hs.PayloadMeasurementStatus != "unavailable (payload exceeds 1048576-byte measurement bound)" || hs.ActiveToolCatalogSHA256 == nil {
		t.Errorf("huge: %v %s", hs.PayloadJSONBytes, hs.PayloadMeasurementStatus)
	}
	// No model client: provider and model join the unavailable list.
	reg, file := exampleRegistry(t)
	noClient := CaptureSnapshot("t", 0, []provider.Tool{file}, NewSurfaceContext(reg, nil, "", "", false))
	if strings.Join(noClient.UnavailableForRequest, ",") != "provider_wire_payload,provider,model" ||
		noClient.Provider.Reason != "no model client resolved for this turn" {
		t.Errorf("no client: %v %+v", noClient.UnavailableForRequest, noClient.Provider)
	}
}

// The projected input_schema_json is exactly encoding/json's text, whether
// the frozen tool's shared canonical string serves (no Go-only escapes) or
// the schema is re-serialised (<, >, &, U+2028).
func TestSnapshotSchemaJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	plain := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string", "description": "é ü"}}}
	escaped := map[string]any{"type": "object", "description": "a <b> & c\u2028d"}
	for _, schema := range []map[string]any{plain, escaped} {
		for _, frozen := range []bool{false, true} {
			tool := provider.Tool{Name: "t", Description: "d", InputSchema: schema}
			if frozen {
				tool.Freeze()
			}
			want, _ := json.Marshal(schema)
			snap := CaptureSnapshot("turn", 1, []provider.Tool{tool}, nil)
			if got := snap.Tools[0].InputSchemaJSON; got.Value != string(want) || got.Truncated {
				t.Errorf("frozen=%v: input_schema_json %q, want %q", frozen, got.Value, want)
			}
		}
	}
}
