package session

import (
	"strings"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/provider"
)

// DefaultPricing is the built-in price table in USD per million tokens:
// Input is a cache-miss input token, CachedInput a cache-hit one. The values
// are DeepSeek's published list prices at peak hours
// (https://api-docs.deepseek.com/quick_start/pricing, checked 2026-10);
// DeepSeek bills off-peak hours at half these rates, so the meter is an upper
// bound. The legacy name deepseek-v4-flash is billed at Flash prices. Users
// override or add models with [pricing.<model>] in config.toml.
var DefaultPricing = map[string]config.Price{
	"deepseek-v4-pro":   {Input: 1.32, CachedInput: 0.044, Output: 3.96},
	"deepseek-v4-flash": {Input: 0.30, CachedInput: 0.006, Output: 1.20},
	"deepseek-flash":    {Input: 0.30, CachedInput: 0.006, Output: 1.20},
}

// PriceFor returns the price of model: the configured table entry first
// (zero fields fall back to the built-in entry, and a missing cached price to
// the input price), then the built-in table. Legacy ids map as the
// first-party route maps them (deepseek-chat → deepseek-v4-flash). ok is
// false when the model has no price, so hosts can say "cost unknown".
func PriceFor(model string, table map[string]config.Price) (p config.Price, ok bool) {
	id := strings.ToLower(strings.TrimSpace(model))
	if info, _ := provider.ResolveModel(id, true); info.ID != "" {
		id = info.ID
	}
	def, hasDef := DefaultPricing[id]
	user, hasUser := lookup(table, model, id)
	if !hasUser {
		return def, hasDef
	}
	if user.Input == 0 {
		user.Input = def.Input
	}
	if user.Output == 0 {
		user.Output = def.Output
	}
	if user.CachedInput == 0 {
		user.CachedInput = def.CachedInput
		if !hasDef {
			user.CachedInput = user.Input
		}
	}
	return user, true
}

func lookup(table map[string]config.Price, names ...string) (config.Price, bool) {
	for _, n := range names {
		if p, ok := table[n]; ok {
			return p, true
		}
	}
	for k, p := range table {
		if strings.EqualFold(k, names[0]) {
			return p, true
		}
	}
	return config.Price{}, false
}

// Cost is the USD price of usage on model: cache-hit input tokens at the
// cached price, the other input tokens at the input price, output tokens
// (which include reasoning) at the output price. An unpriced model costs 0;
// use PriceFor to tell that apart from a free one.
func Cost(model string, usage provider.Usage, table map[string]config.Price) float64 {
	p, ok := PriceFor(model, table)
	if !ok {
		return 0
	}
	hit := 0
	if usage.PromptCacheHitTokens != nil {
		hit = *usage.PromptCacheHitTokens
	}
	miss := max(usage.InputTokens-hit, 0)
	if usage.PromptCacheMissTokens != nil {
		miss = *usage.PromptCacheMissTokens
	}
	return (float64(hit)*p.CachedInput + float64(miss)*p.Input + float64(usage.OutputTokens)*p.Output) / 1e6
}
