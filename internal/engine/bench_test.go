package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools"
)

// benchTool stands for a catalog entry with a realistic schema; the
// benchmark never executes it.
type benchTool struct{ tools.Spec }

func (benchTool) Execute(context.Context, *tools.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{}, fmt.Errorf("benchmark fixture")
}

func benchSchema(i int) map[string]any {
	return map[string]any{
		"type":     "object",
		"required": []any{"action"},
		"properties": map[string]any{
			"action":  map[string]any{"type": "string", "enum": []any{"read", "list", "search", "write"}, "description": "What to do."},
			"path":    map[string]any{"type": "string", "description": fmt.Sprintf("Path for operation %d, relative to the workspace.", i)},
			"limit":   map[string]any{"type": "integer", "minimum": 1, "maximum": 200, "default": 20},
			"include": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"options": map[string]any{"type": "object", "properties": map[string]any{"deep": map[string]any{"type": "boolean"}}},
		},
	}
}

// benchCatalog is 10 built-in-like tools plus 190 MCP-like tools.
func benchCatalog(posture posture.Posture) (*catalog.Catalog, *SurfaceContext) {
	reg := tools.NewRegistry()
	info := catalog.MCPInfo{Servers: map[string]string{}}
	for i, n := range []string{"Bash", "File", "Git", "Run", "agent", "remember", "tasks", "work_update", "update_plan", "Web"} {
		reg.Register(&benchTool{tools.Spec{ToolName: n, Desc: "Built-in tool " + n + " with a description of ordinary length.", Schema: benchSchema(i)}})
	}
	for i := 0; i < 190; i++ {
		name := fmt.Sprintf("mcp_server%d_tool_%03d", i%7, i)
		reg.Register(&benchTool{tools.Spec{ToolName: name, Desc: "An MCP tool that does something useful with its arguments.", Schema: benchSchema(i)}})
		info.Servers[name] = fmt.Sprintf("server%d", i%7)
	}
	c := catalog.Build(reg, info, catalog.Options{Posture: posture})
	return c, NewSurfaceContext(reg, info.Servers, "DeepSeek", "deepseek-v4-pro", true)
}

// BenchmarkRequestToolsSnapshotDigest measures one step's seam work: the
// request's tools field, the bounded snapshot and the catalog digest.
func BenchmarkRequestToolsSnapshotDigest(b *testing.B) {
	cases := []struct {
		name   string
		setup  func(*catalog.Catalog)
		policy posture.Posture
	}{
		{"first-step", func(*catalog.Catalog) {}, posture.Ask},
		{"20-loaded", func(c *catalog.Catalog) {
			for i := 0; i < 20; i++ {
				c.Activate(fmt.Sprintf("mcp_server%d_tool_%03d", i%7, i))
			}
		}, posture.Ask},
		{"all-200-active", func(*catalog.Catalog) {}, posture.FullAccess},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			c, sc := benchCatalog(tc.policy)
			tc.setup(c)
			b.ReportAllocs()
			var n int
			for b.Loop() {
				req := c.RequestTools()
				snap := CaptureSnapshot("0b7c9a52-3f4e-4d1a-9c2b-6e8f1a2b3c4d", 1, req, sc)
				n = snap.ToolCount
			}
			b.ReportMetric(float64(n), "tools/request")
		})
	}
}
