package config

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/netpolicy"
)

// Network is the [network] table: which hosts the agent's own network
// clients (Web, MCP over HTTP, github's gh) may reach.
type Network struct {
	Default string   `toml:"default"` // allow (default), deny, prompt
	Allow   []string `toml:"allow"`
	Deny    []string `toml:"deny"`
	// AllowPrivate are the person's own private hosts ("localhost:3000",
	// "127.0.0.1:8080") reached without an explicit approval; never read
	// from a project's config.
	AllowPrivate []string `toml:"allow_private"`
	Audit        bool     `toml:"audit"` // one line per call in $CODEWHALE_HOME/audit.log
}

// GitHub is the [github] table.
type GitHub struct {
	// Hosts are the GitHub Enterprise hosts (host or host:port) the github
	// tool may reach besides github.com: the one place its hosts come from.
	Hosts []string `toml:"hosts"`
}

// resolveGitHub checks and normalises [github] hosts.
func (c *Config) resolveGitHub() error {
	if c.File.GitHub == nil {
		return nil
	}
	for _, e := range c.File.GitHub.Hosts {
		h, p, err := netpolicy.ParseHostPort("github.hosts", e)
		if err != nil {
			return fmt.Errorf("config: %s: %w", c.Path, err)
		}
		if p != "" {
			h = net.JoinHostPort(h, p)
		}
		c.GitHubHosts = append(c.GitHubHosts, h)
	}
	return nil
}

// Search is the [search] table: the Web tool's backend chain.
type Search struct {
	Provider   string          `toml:"provider"`
	BaseURL    string          `toml:"base_url"`
	APIKey     string          `toml:"api_key"`
	Fallback   []string        `toml:"fallback"`
	DuckDuckGo *SearchEndpoint `toml:"duckduckgo"`
	SearXNG    *SearchEndpoint `toml:"searxng"`
	Tavily     *SearchEndpoint `toml:"tavily"`
	Brave      *SearchEndpoint `toml:"brave"`
}

// SearchEndpoint is one backend's [search.<name>] table.
type SearchEndpoint struct {
	BaseURL string `toml:"base_url"`
	APIKey  string `toml:"api_key"`
}

// WebConfig is the resolved Web configuration.
type WebConfig struct {
	Enabled  bool // [features] web_search (default on) and a policy that can reach something
	Policy   *netpolicy.Policy
	Provider string
	Fallback []string            // nil: the Web tool's default
	Backends map[string]Endpoint // by backend name
}

// Endpoint is a search backend's resolved base URL and key.
type Endpoint struct{ BaseURL, APIKey string }

// resolveWeb applies [features] web_search, [network] and [search], then
// the environment (CODEWHALE_SEARCH_BASE_URL, DEEPSEEK_SEARCH_PROVIDER,
// DEEPSEEK_SEARCH_API_KEY) for the selected provider.
func (c *Config) resolveWeb(env Env) error {
	f := &c.File
	n := f.Network
	if n == nil {
		n = &Network{}
	}
	def, err := netpolicy.ParseDefault(n.Default)
	if err != nil {
		return fmt.Errorf("config: %s: %w", c.Path, err)
	}
	for _, e := range n.AllowPrivate {
		if _, _, err := netpolicy.ParseHostPort("network.allow_private", e); err != nil {
			return fmt.Errorf("config: %s: %w", c.Path, err)
		}
	}
	p := &netpolicy.Policy{Default: def, Allow: n.Allow, Deny: n.Deny, AllowPrivate: n.AllowPrivate}
	if n.Audit {
		p.Audit = &netpolicy.AuditLog{Path: filepath.Join(c.Home, "audit.log")}
	}
	w := WebConfig{Policy: p, Backends: map[string]Endpoint{}}
	s := f.Search
	if s == nil {
		s = &Search{}
	}
	for name, ep := range map[string]*SearchEndpoint{"duckduckgo": s.DuckDuckGo, "searxng": s.SearXNG, "tavily": s.Tavily, "brave": s.Brave} {
		if ep != nil {
			w.Backends[name] = Endpoint{BaseURL: ep.BaseURL, APIKey: ep.APIKey}
		}
	}
	w.Provider = strings.ToLower(firstNonEmpty(env.first("DEEPSEEK_SEARCH_PROVIDER"), s.Provider, "duckduckgo"))
	if w.Provider == "ddg" {
		w.Provider = "duckduckgo"
	}
	switch w.Provider {
	case "duckduckgo", "searxng", "tavily", "brave":
	default:
		return fmt.Errorf("config: %s: search.provider: unknown value %q (allowed: duckduckgo, searxng, tavily, brave)", c.Path, w.Provider)
	}
	sel := w.Backends[w.Provider]
	sel.BaseURL = firstNonEmpty(env.first("CODEWHALE_SEARCH_BASE_URL"), s.BaseURL, sel.BaseURL)
	sel.APIKey = firstNonEmpty(env.first("DEEPSEEK_SEARCH_API_KEY"), s.APIKey, sel.APIKey)
	w.Backends[w.Provider] = sel
	if s.Fallback != nil {
		w.Fallback = s.Fallback
	}
	on := f.Features == nil || f.Features.WebSearch == nil || *f.Features.WebSearch
	// A deny-everything policy with no allowed host and no configured
	// backend can reach nothing: the tool is not offered at all.
	reachable := def != netpolicy.Deny || len(n.Allow) > 0 || sel.BaseURL != ""
	w.Enabled = on && reachable
	c.Web = w
	return nil
}
