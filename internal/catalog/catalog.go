// Package catalog builds the per-turn model-facing tool catalog: which tools
// are eager (sent from the first step), which are deferred (sent only once
// loaded), the synthetic tool_search that loads them, and the order of the
// request's tools field (CONTRACT.md §4).
package catalog

import (
	"slices"
	"strings"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools"
)

// DefaultActiveNativeTools is the one definition of the default-active
// policy. With the synthetic tool_search it names exactly nine tools; a name
// that is not registered this turn is simply absent.
var DefaultActiveNativeTools = []string{"Bash", "File", "Git", "Run", "agent", "remember", "tasks", "work_update"}

// ToolSearchName is the synthetic tool that loads deferred tools.
const ToolSearchName = "tool_search"

// SyntheticNames is the one list of engine-injected names (sorted); /tools
// derives synthetic provenance from it.
var SyntheticNames = []string{"code_execution", "js_execution", "tool_search", "tool_search_tool_bm25", "tool_search_tool_regex"}

// IsSynthetic reports whether name is an engine-injected catalog tool.
func IsSynthetic(name string) bool { _, ok := slices.BinarySearch(SyntheticNames, name); return ok }

// IsToolSearch reports whether name is a tool_search spelling.
func IsToolSearch(name string) bool {
	return name == ToolSearchName || name == "tool_search_tool_bm25" || name == "tool_search_tool_regex"
}

// IsDefaultActive reports whether name is in the default-active policy.
func IsDefaultActive(name string) bool {
	return name == ToolSearchName || slices.Contains(DefaultActiveNativeTools, name)
}

// Origin is where a catalog entry comes from.
type Origin string

const (
	OriginBuiltin   Origin = "builtin"
	OriginMCP       Origin = "mcp"
	OriginPlugin    Origin = "plugin"
	OriginSynthetic Origin = "synthetic"
)

// Entry is one catalog tool.
type Entry struct {
	Tool      provider.Tool
	Origin    Origin
	MCPServer string // set for MCP tools the pool attributed
	haystack  string
}

// Deferred reports whether the entry is sent only once loaded.
func (e *Entry) Deferred() bool { return e.Tool.DeferLoading != nil && *e.Tool.DeferLoading }

// MCPInfo is what the MCP pool says about the MCP adapters registered in
// the registry: which server produced each model name (only names the pool
// attributed unambiguously) and which are read helpers (eager).
type MCPInfo struct {
	Servers map[string]string // model tool name -> server
	Helpers map[string]bool
}

// Options shape one turn's catalog.
type Options struct {
	Mode       posture.Mode
	Posture    posture.Posture
	AllowShell bool
	AlwaysLoad []string // config [tools] always_load
	Allow      []string // allowed-tools list (empty = all)
	Deny       []string // disallowed-tools list
	// CommandAllow is a user command's allowed-tools for its turn (nil =
	// no further limit): a tool must pass Allow and this list.
	CommandAllow []string
}

// Catalog is one turn's catalog and active set. It is owned by one turn (or
// one sub-agent run) and is not safe for concurrent use.
type Catalog struct {
	entries []Entry
	index   map[string]int
	active  map[string]bool
	opts    Options
	held    int // MCP tools Full Access would have sent that the eager budget kept deferred
}

// Build assembles the catalog from the registry's model-visible tools
// (CONTRACT.md §4.1): native tools first, then the MCP adapters the pool
// attributed, each block sorted by name, then the synthetic tool_search.
func Build(reg *tools.Registry, mcp MCPInfo, opts Options) *Catalog {
	api := reg.APITools()
	native := make([]Entry, 0, len(api))
	var mcpEntries []Entry
	var budget eagerBudget
	for _, t := range api {
		if server, ok := mcp.Servers[t.Name]; ok {
			eager := mcp.Helpers[t.Name] || slices.Contains(opts.AlwaysLoad, t.Name)
			// Plan refuses every MCP tool but the read helpers (CONTRACT.md
			// §4.7), so Full Access sends none of them there: they would only
			// invite calls that fail (CONTRACT.md §4.6).
			if !eager && opts.Posture == posture.FullAccess && opts.Mode != posture.Plan {
				eager = budget.admit(&t)
			}
			t.DeferLoading = provider.Bool(!eager)
			mcpEntries = append(mcpEntries, Entry{Tool: t, Origin: OriginMCP, MCPServer: server})
			continue
		}
		t.DeferLoading = provider.Bool(!IsDefaultActive(t.Name) && !slices.Contains(opts.AlwaysLoad, t.Name) && !IsToolSearch(t.Name))
		native = append(native, Entry{Tool: t, Origin: OriginBuiltin})
	}
	// APITools is sorted by name, so both blocks already are.
	entries := append(native, mcpEntries...)
	if len(entries) > 0 && !containsEntry(entries, ToolSearchName) {
		entries = append(entries, Entry{Tool: ToolSearchTool(), Origin: OriginSynthetic})
	}
	entries = filterLists(entries, opts.Allow, opts.Deny)
	if opts.CommandAllow != nil {
		entries = filterLists(entries, opts.CommandAllow, nil)
	}
	c := &Catalog{entries: entries, index: make(map[string]int, len(entries)), active: map[string]bool{}, opts: opts, held: budget.held}
	for i := range c.entries {
		c.index[c.entries[i].Tool.Name] = i
		if !c.entries[i].Deferred() {
			c.active[c.entries[i].Tool.Name] = true
		}
	}
	// When the lists leave only deferred entries, the first is active so a
	// catalog that is not empty never sends an empty tools array.
	if len(c.active) == 0 && len(c.entries) > 0 {
		c.active[c.entries[0].Tool.Name] = true
	}
	return c
}

func containsEntry(es []Entry, name string) bool {
	for i := range es {
		if es[i].Tool.Name == name {
			return true
		}
	}
	return false
}

// MatchRule reports whether name matches an allow/deny rule: ASCII
// case-insensitive, with a trailing `*` as a prefix wildcard.
func MatchRule(rule, name string) bool {
	if p, ok := strings.CutSuffix(rule, "*"); ok {
		return len(name) >= len(p) && asciiEqualFold(name[:len(p)], p)
	}
	return asciiEqualFold(rule, name)
}

// asciiEqualFold is strings.EqualFold for ASCII letters only. EqualFold
// folds Unicode too (the Kelvin sign is "k", the long s is "s"), so a rule
// could name a tool it does not spell; tool names are matched byte for byte
// but for ASCII case (CONTRACT.md §4.8).
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// MatchesAny reports whether name matches any rule.
func MatchesAny(rules []string, name string) bool {
	for _, r := range rules {
		if MatchRule(r, name) {
			return true
		}
	}
	return false
}

func filterLists(es []Entry, allow, deny []string) []Entry {
	if len(allow) == 0 && len(deny) == 0 {
		return es
	}
	out := es[:0]
	for _, e := range es {
		if MatchesAny(deny, e.Tool.Name) || (len(allow) > 0 && !MatchesAny(allow, e.Tool.Name)) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// Entries returns the catalog in order. Callers must not modify it.
func (c *Catalog) Entries() []Entry { return c.entries }

// Lookup returns the entry named exactly name.
func (c *Catalog) Lookup(name string) (*Entry, bool) {
	i, ok := c.index[name]
	if !ok {
		return nil, false
	}
	return &c.entries[i], true
}

// IsActive reports whether name is in this step's tools field.
func (c *Catalog) IsActive(name string) bool { return c.active[name] }

// Activate loads names into the active set for the rest of the turn and
// returns the ones that were not active before. Unknown names are ignored,
// and so are names beyond MaxActive: the request never grows past it.
func (c *Catalog) Activate(names ...string) []string {
	var added []string
	for _, n := range names {
		if _, ok := c.index[n]; ok && !c.active[n] && len(c.active) < MaxActive {
			c.active[n] = true
			added = append(added, n)
		}
	}
	return added
}

// RequestTools returns the tools field for the next request: eager entries
// in catalog order, then loaded deferred entries in catalog order, so a load
// never moves an eager entry and the head bytes stay stable for the prefix
// cache (loads sort among themselves in the tail). An empty
// catalog yields nil: the request then has no tools field at all.
func (c *Catalog) RequestTools() []provider.Tool {
	if len(c.entries) == 0 {
		return nil
	}
	out := make([]provider.Tool, 0, len(c.active))
	for _, e := range c.entries {
		if !e.Deferred() && c.active[e.Tool.Name] {
			out = append(out, e.Tool)
		}
	}
	for _, e := range c.entries {
		if e.Deferred() && c.active[e.Tool.Name] {
			out = append(out, e.Tool)
		}
	}
	return out
}

// MCPAttribution maps each MCP model tool name in the catalog to the server
// the pool attributed it to.
func (c *Catalog) MCPAttribution() map[string]string {
	out := map[string]string{}
	for _, e := range c.entries {
		if e.Origin == OriginMCP && e.MCPServer != "" {
			out[e.Tool.Name] = e.MCPServer
		}
	}
	return out
}

// Names returns the catalog's tool names in catalog order.
func (c *Catalog) Names() []string {
	out := make([]string, len(c.entries))
	for i := range c.entries {
		out[i] = c.entries[i].Tool.Name
	}
	return out
}
