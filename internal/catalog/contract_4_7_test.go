package catalog_test

import (
	"testing"

	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/posture"
)

// CONTRACT.md §4.7: an MCP tool is deferred unless it is in always_load or
// the posture is Full Access outside Plan; the resource and prompt helpers are eager in
// every posture; attribution keeps the pool's server (a helper's is the
// comma-separated servers offering it).
func TestContractMCPDeferral(t *testing.T) {
	t.Parallel()
	reg := registry("mcp_a_x", "mcp_a_y", "list_mcp_resources", "mcp_get_prompt")
	info := catalog.MCPInfo{
		Servers: map[string]string{"mcp_a_x": "a", "mcp_a_y": "a", "list_mcp_resources": "a,b", "mcp_get_prompt": "b"},
		Helpers: map[string]bool{"list_mcp_resources": true, "mcp_get_prompt": true},
	}
	for _, p := range []posture.Posture{posture.Ask, posture.AutoReview, posture.FullAccess} {
		for _, mode := range []posture.Mode{posture.Act, posture.Plan} {
			c := catalog.Build(reg, info, catalog.Options{Mode: mode, Posture: p, AlwaysLoad: []string{"mcp_a_y"}})
			for name, eager := range map[string]bool{"mcp_a_x": p == posture.FullAccess && mode != posture.Plan, "mcp_a_y": true,
				"list_mcp_resources": true, "mcp_get_prompt": true} {
				e, ok := c.Lookup(name)
				if !ok || e.Deferred() == eager || c.IsActive(name) != eager || e.Origin != catalog.OriginMCP {
					t.Errorf("%v %v %s: present %v deferred %v active %v; want eager %v", p, mode, name, ok, ok && e.Deferred(), c.IsActive(name), eager)
				}
			}
			if got := c.MCPAttribution(); got["list_mcp_resources"] != "a,b" || got["mcp_get_prompt"] != "b" || got["mcp_a_x"] != "a" {
				t.Errorf("%v %v attribution %v", p, mode, got)
			}
		}
	}
}

// CONTRACT.md §4.7: a model name the pool did not attribute (an ambiguous
// one) is no MCP entry and resolves to no server.
func TestContractUnattributedNameHasNoServer(t *testing.T) {
	t.Parallel()
	reg := registry("mcp_my_db_x", "mcp_ok_y")
	c := catalog.Build(reg, catalog.MCPInfo{Servers: map[string]string{"mcp_ok_y": "ok"}}, catalog.Options{})
	if _, ok := c.MCPAttribution()["mcp_my_db_x"]; ok {
		t.Error("an unattributed name resolves to a server")
	}
}
