package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools"
)

// fixture is a registry entry used to exercise catalog ordering; the
// catalog never executes tools.
type fixture struct{ tools.Spec }

func (fixture) Execute(context.Context, *tools.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{}, fmt.Errorf("not executed by the catalog")
}

func registry(names ...string) *tools.Registry {
	reg := tools.NewRegistry()
	for _, n := range names {
		hidden := strings.HasPrefix(n, "~")
		n = strings.TrimPrefix(n, "~")
		reg.Register(&fixture{tools.Spec{ToolName: n, Desc: "The " + n + " tool.", Hidden: hidden,
			Schema: map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}}})
	}
	return reg
}

func names(ts []provider.Tool) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return strings.Join(out, ",")
}

// CONTRACT.md §4.1: native entries sorted by name, eager unless default-active, tool_search last, hidden aliases left
// out, and loads appended at the tail.
// README.md "Tools": everything but the default-active tools is deferred, and a loaded tool joins the request at the tail.
func TestEagerSetAndOrder(t *testing.T) {
	t.Parallel()
	reg := registry("work_update", "tasks", "Web", "update_plan", "agent", "Run", "Git", "File", "Bash", "remember", "~apply_patch", "~todo_write")
	c := catalog.Build(reg, catalog.MCPInfo{}, catalog.Options{})
	if got := names(c.RequestTools()); got != "Bash,File,Git,Run,agent,remember,tasks,work_update,tool_search" {
		t.Errorf("first request: %s", got)
	}
	for _, n := range []string{"Web", "update_plan"} {
		if e, ok := c.Lookup(n); !ok || !e.Deferred() || c.IsActive(n) {
			t.Errorf("%s must be deferred and inactive", n)
		}
	}
	if _, ok := c.Lookup("apply_patch"); ok {
		t.Error("a hidden alias reached the catalog")
	}
	c.Activate("update_plan")
	c.Activate("Web")
	if got := names(c.RequestTools()); got != "Bash,File,Git,Run,agent,remember,tasks,work_update,tool_search,Web,update_plan" {
		t.Errorf("after loads: %s", got)
	}
	if c.Activate("Web", "nope") != nil {
		t.Error("re-activating or unknown names must add nothing")
	}
}

// CONTRACT.md §4.1: an empty catalog sends no tools field at all.
func TestEmptyCatalogHasNoToolsField(t *testing.T) {
	t.Parallel()
	c := catalog.Build(tools.NewRegistry(), catalog.MCPInfo{}, catalog.Options{})
	if c.RequestTools() != nil || len(c.Entries()) != 0 {
		t.Error("an empty catalog must yield an absent tools field, not tool_search alone")
	}
}

// CONTRACT.md §4.1: MCP entries follow the native ones and are deferred; Full Access makes them eager (also CONTRACT.md §4.7).
func TestMCPToolsFollowNativeAndAreDeferred(t *testing.T) {
	t.Parallel()
	reg := registry("File", "mcp_b_x", "mcp_a_list_mcp_resources", "zzz")
	info := catalog.MCPInfo{Servers: map[string]string{"mcp_b_x": "b", "mcp_a_list_mcp_resources": "a"},
		Helpers: map[string]bool{"mcp_a_list_mcp_resources": true}}
	c := catalog.Build(reg, info, catalog.Options{})
	var order []string
	for _, e := range c.Entries() {
		order = append(order, string(e.Origin)+":"+e.Tool.Name)
	}
	if got := strings.Join(order, ","); got != "builtin:File,builtin:zzz,mcp:mcp_a_list_mcp_resources,mcp:mcp_b_x,synthetic:tool_search" {
		t.Errorf("order %s", got)
	}
	if got := names(c.RequestTools()); got != "File,mcp_a_list_mcp_resources,tool_search" {
		t.Errorf("request %s", got)
	}
	if c.MCPAttribution()["mcp_b_x"] != "b" {
		t.Error("attribution")
	}
	full := catalog.Build(reg, info, catalog.Options{Posture: posture.FullAccess})
	if !full.IsActive("mcp_b_x") {
		t.Error("Full Access makes MCP tools eager")
	}
}

// CONTRACT.md §4.8: the lists narrow the catalog, match case-insensitively with prefix* rules, and deny wins over
// allow.
func TestAllowDenyLists(t *testing.T) {
	t.Parallel()
	reg := registry("Bash", "File", "Git", "update_plan")
	c := catalog.Build(reg, catalog.MCPInfo{}, catalog.Options{Deny: []string{"bash", "tool_*"}, Allow: []string{"*"}})
	if got := names(c.RequestTools()); got != "File,Git" {
		t.Errorf("deny: %s", got)
	}
	c = catalog.Build(reg, catalog.MCPInfo{}, catalog.Options{Allow: []string{"file", "tool_search"}, Deny: []string{"FILE"}})
	if got := names(c.RequestTools()); got != "tool_search" {
		t.Errorf("deny wins over allow: %s", got)
	}
}

func search(t *testing.T, c *catalog.Catalog, in string) (*catalog.SearchResult, error) {
	t.Helper()
	return c.Search("tool_search", json.RawMessage(in))
}

// CONTRACT.md §4.3: max_results default and clamps, bm25 name weighting and ties, regex mode on the lower-cased
// haystack, the exact error texts, hidden aliases and tool_search never returned, the unavailable reference and the
// content shape.
func TestToolSearch(t *testing.T) {
	t.Parallel()
	var many []string
	for i := 0; i < 130; i++ {
		many = append(many, fmt.Sprintf("extra_%03d", i))
	}
	reg := registry(append(many, "File", "Git", "update_plan", "~todo_write")...)
	c := catalog.Build(reg, catalog.MCPInfo{}, catalog.Options{Mode: posture.Plan})
	res, err := search(t, c, `{"query":"extra"}`)
	if err != nil || len(res.References) != 20 {
		t.Fatalf("default limit: %d %v", len(res.References), err)
	}
	if res, _ = search(t, c, `{"query":"extra","max_results":500}`); len(res.References) != 100 {
		t.Errorf("clamp to 100: %d", len(res.References))
	}
	if res, _ = search(t, c, `{"query":"extra","max_results":0}`); len(res.References) != 1 {
		t.Errorf("clamp to 1: %d", len(res.References))
	}
	// Name hits outrank description hits; ties sort by name.
	res, _ = search(t, c, `{"query":"update plan"}`)
	if res.References[0] != "update_plan" || !c.IsActive("update_plan") || strings.Join(res.Loaded, ",") != "update_plan" {
		t.Errorf("bm25: %v loaded %v", res.References, res.Loaded)
	}
	if res, _ = search(t, c, `{"query":"todo_write"}`); len(res.References) != 0 {
		t.Errorf("hidden alias found: %v", res.References)
	}
	if res, _ = search(t, c, `{"query":"tool_search search"}`); strings.Contains(strings.Join(res.References, ","), "tool_search") {
		t.Error("tool_search returned itself")
	}
	if res, _ = search(t, c, `{"query":"^git\\n","match":"regex"}`); strings.Join(res.References, ",") != "Git" {
		t.Errorf("regex: %v", res.References)
	}
	if res, _ = c.Search("tool_search_tool_regex", json.RawMessage(`{"query":"^GIT"}`)); len(res.References) != 0 {
		t.Error("the haystack is lower-case: upper-case literals never match")
	}
	for in, want := range map[string]string{
		`{"query":"x","match":"fuzzy"}`:   "Unsupported match algorithm 'fuzzy'. Expected one of: bm25, regex",
		`{"query":"(","match":"regex"}`:   "Invalid regex query: error parsing regexp",
		`{}`:                              "missing required field 'query'",
		`{"query":"x","max_results":"3"}`: "field 'max_results' must be an integer",
	} {
		if _, err := search(t, c, in); err == nil || !strings.Contains(tools.AsError(err).Render("tool_search"), want) {
			t.Errorf("%s: %v", in, err)
		}
	}
	// Bash is absent in Plan: a matching query explains why.
	res, _ = search(t, c, `{"query":"bash"}`)
	if len(res.Unavailable) != 1 || !strings.Contains(res.Unavailable[0]["reason"].(string), "Plan mode") {
		t.Errorf("unavailable: %v", res.Unavailable)
	}
	if !strings.HasPrefix(res.Content(), `{"type":"tool_search_tool_search_result","tool_references":[],"unavailable_tool_references":[{`) {
		t.Errorf("content %s", res.Content())
	}
}
