package session

import (
	"strings"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/provider"
)

// builtinPrice is model id's price from the one model table
// (provider.Models); an unknown model has none.
func builtinPrice(id string) (config.Price, bool) {
	m, ok := provider.LookupModel(id)
	if !ok {
		return config.Price{}, false
	}
	return config.Price{Input: m.Price.Input, CachedInput: m.Price.CachedInput, Output: m.Price.Output}, true
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
	def, hasDef := builtinPrice(id)
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
	return CostAt(p, usage)
}

// CostAt is the USD price of usage at price p (the one formula).
func CostAt(p config.Price, usage provider.Usage) float64 {
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
