package config

import (
	"maps"
	"path/filepath"

	"github.com/codewhale/codewhale/internal/provider"
)

// ModelTableEntry is one [models.<id>] table: what a model can do and what
// it costs, for a model the built-in table does not know or states wrong
// (CONTRACT.md §10.9). Prices are USD per million tokens.
type ModelTableEntry struct {
	ContextWindow    int      `toml:"context_window"`
	MaxOutput        int      `toml:"max_output"`
	Vision           *bool    `toml:"vision"`
	Reasoning        *bool    `toml:"reasoning"`
	Tools            *bool    `toml:"tools"`
	InputPrice       *float64 `toml:"input_price"`
	CachedInputPrice *float64 `toml:"cached_input_price"`
	OutputPrice      *float64 `toml:"output_price"`
}

// ModelTable is the route's model table: the built-in rows, the server's
// cached /models list (read when a model not built in is first looked up,
// never fetched here), [models.<id>], the older [pricing.<model>] rows and
// [providers.<name>] context_window. A local server's models are free.
func (c *Config) ModelTable() *provider.ModelTable {
	t := &provider.ModelTable{Overrides: map[string]provider.ModelOverride{}, Free: c.KeyOptional}
	maps.Copy(t.Overrides, PricingOverrides(c.File.Pricing))
	for id, m := range c.File.Models {
		t.Overrides[id] = provider.ModelOverride{ContextWindow: m.ContextWindow, MaxOutput: m.MaxOutput,
			Vision: m.Vision, Reasoning: m.Reasoning, Tools: m.Tools,
			Input: m.InputPrice, CachedInput: m.CachedInputPrice, Output: m.OutputPrice}
	}
	t.ContextWindow = c.File.Providers[c.Provider].ContextWindow
	cache, id, base := c.ModelCache(), c.Provider, c.BaseURL
	t.Live = func() []provider.LiveModel {
		models, _, _ := cache.Load(id, base)
		return models
	}
	return t
}

// PricingOverrides are [pricing.<model>] tables as model-table overrides:
// a zero price is one the table does not set.
func PricingOverrides(pricing map[string]Price) map[string]provider.ModelOverride {
	out := make(map[string]provider.ModelOverride, len(pricing))
	for id, p := range pricing {
		o := provider.ModelOverride{ContextWindow: p.ContextLimit}
		if p.Input > 0 {
			o.Input = &p.Input
		}
		if p.Output > 0 {
			o.Output = &p.Output
		}
		if p.CachedInput > 0 {
			o.CachedInput = &p.CachedInput
		}
		out[id] = o
	}
	return out
}

// ModelCache is where model lists are kept: $CODEWHALE_HOME/cache/models.
func (c *Config) ModelCache() provider.ModelCache {
	return provider.ModelCache{Dir: filepath.Join(c.Home, "cache", "models"), TTL: provider.DefaultModelTTL}
}
