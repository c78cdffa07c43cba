package mcp

import (
	"sort"
	"strings"

	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/mcpname"
	"github.com/codewhale/codewhale/internal/tools"
)

// surface is what the connected servers contribute to a turn, derived from
// one version of the pool's state.
type surface struct {
	version uint64
	tools   []tools.Tool
	info    catalog.MCPInfo
}

// Info says which model names the pool attributed to which server: exactly
// the unambiguous names of Tools. The resource and prompt helpers are
// attributed to the servers that offer them (comma-separated) and marked in
// Helpers, so the catalog makes them eager (CONTRACT.md §4.7).
func (p *Pool) Info() catalog.MCPInfo {
	s := p.surface().info
	info := catalog.MCPInfo{Servers: make(map[string]string, len(s.Servers)), Helpers: make(map[string]bool, len(s.Helpers))}
	for k, v := range s.Servers {
		info.Servers[k] = v
	}
	for k, v := range s.Helpers {
		info.Helpers[k] = v
	}
	return info
}

// Server returns the server that produced model name, if the pool
// attributed it (an ambiguous name has none).
func (p *Pool) Server(modelName string) (string, bool) {
	s, ok := p.surface().info.Servers[modelName]
	return s, ok
}

func (p *Pool) surface() *surface {
	v := p.version.Load()
	if cur := p.cache.Load(); cur != nil && cur.version == v {
		return cur
	}
	s := p.build(v)
	p.cache.Store(s)
	return s
}

// claim is one (server, tool) pair that produced a model name, or (tool
// nil) a helper the listed servers call for.
type claim struct {
	server string
	tool   *toolDef
	helper []string
}

// build groups every enabled tool of every connected server by model name.
// A name claimed more than once is hidden: no adapter, no attribution, only
// a hidden refusal so a call by that name fails with the contract's error.
func (p *Pool) build(version uint64) *surface {
	byName := map[string][]claim{}
	for _, s := range p.pick(nil) {
		for _, t := range s.snapshotTools() {
			name := mcpname.ModelToolName(s.cfg.Name, t.Name)
			byName[name] = append(byName[name], claim{server: s.cfg.Name, tool: newToolDef(t)})
		}
	}
	helpers := map[string][]string{}
	for _, s := range p.pick(nil) {
		for _, h := range helperNames(s.offers()) {
			helpers[h] = append(helpers[h], s.cfg.Name)
		}
	}
	for h, servers := range helpers {
		byName[h] = append(byName[h], claim{helper: servers})
	}
	out := &surface{version: version, info: catalog.MCPInfo{Servers: map[string]string{}, Helpers: map[string]bool{}}}
	for name, claims := range byName {
		if len(claims) > 1 {
			p.opts.Logger.Warn("hiding ambiguous MCP model tool name", "name", name, "claims", len(claims))
			out.tools = append(out.tools, newAmbiguous(name))
			continue
		}
		c := claims[0]
		if c.tool == nil {
			out.tools = append(out.tools, newHelper(p, name))
			out.info.Servers[name] = strings.Join(c.helper, ",")
			out.info.Helpers[name] = true
			continue
		}
		out.tools = append(out.tools, newAdapter(p, name, c.server, c.tool))
		out.info.Servers[name] = c.server
	}
	sort.Slice(out.tools, func(i, j int) bool { return out.tools[i].Name() < out.tools[j].Name() })
	return out
}
