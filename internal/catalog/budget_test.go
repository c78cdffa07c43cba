package catalog_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools"
)

// Full Access with a 5,000-tool MCP server: the request carries at most
// the eager budget of them; the rest stay deferred and tool_search finds
// and loads them. Every posture sends at most MaxActive tools.
// README.md "MCP servers": in Full Access MCP tools are sent up to the catalog budget, the rest stay deferred for tool_search, and no request carries more than 128 tools.
func TestCatalogBudgetHoldsInFullAccess(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry()
	info := catalog.MCPInfo{Servers: map[string]string{}}
	for i := range 5000 {
		name := fmt.Sprintf("mcp_big_tool%04d", i)
		info.Servers[name] = "big"
		reg.Register(&fixture{tools.Spec{ToolName: name, Desc: "Big server tool number " + fmt.Sprint(i) + ".",
			Schema: map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string", "description": strings.Repeat("d", 200)}}}}})
	}
	for _, p := range []posture.Posture{posture.Ask, posture.AutoReview, posture.FullAccess} {
		c := catalog.Build(reg, info, catalog.Options{Posture: p})
		sent := c.RequestTools()
		raw, _ := json.Marshal(sent)
		mcp := 0
		for _, tl := range sent {
			if strings.HasPrefix(tl.Name, "mcp_") {
				mcp++
			}
		}
		if mcp > catalog.MaxEagerMCP || len(raw) > 100<<10 {
			t.Errorf("%v: %d MCP tools, %d bytes in the request", p, mcp, len(raw))
		}
		if p == posture.FullAccess && (mcp == 0 || c.HeldByBudget() != 5000-mcp) {
			t.Errorf("Full Access: %d eager, %d held", mcp, c.HeldByBudget())
		}
		res, err := c.Search("tool_search", json.RawMessage(`{"query":"tool4321","match":"regex"}`))
		if err != nil || len(res.References) != 1 || res.References[0] != "mcp_big_tool4321" || !c.IsActive("mcp_big_tool4321") {
			t.Errorf("%v: search %+v %v", p, res, err)
		}
		// Loading keeps the request under MaxActive however much is asked.
		var refused int
		for _, q := range []string{"tool1", "tool2", "tool3"} {
			res, err := c.Search("tool_search", json.RawMessage(`{"query":"`+q+`","match":"regex","max_results":100}`))
			if err != nil {
				t.Fatal(err)
			}
			refused += len(res.Unavailable)
		}
		if n := len(c.RequestTools()); n != catalog.MaxActive || refused == 0 {
			t.Errorf("%v: %d tools after loading, %d refused", p, n, refused)
		}
	}
}
