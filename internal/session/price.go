package session

import (
	"strings"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/provider"
)

// PriceFor returns the price of model, as the model table resolves it
// (provider.ModelTable, the one definition of prices): the built-in row,
// then the configured [pricing] table, whose zero fields keep the built-in
// price (and a missing cached price is the input price); the id is
// matched without regard to case, and legacy ids map as the first-party
// route maps them (deepseek-chat → deepseek-v4-flash). ok is false when the
// model has no price, so hosts can say "cost unknown".
func PriceFor(model string, table map[string]config.Price) (p config.Price, ok bool) {
	t := &provider.ModelTable{Overrides: config.PricingOverrides(table)}
	info, _ := t.Resolve(strings.ToLower(strings.TrimSpace(model)), true)
	return config.Price{Input: info.Price.Input, CachedInput: info.Price.CachedInput, Output: info.Price.Output}, info.Priced
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
