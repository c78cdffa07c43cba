package usage

import (
	"fmt"
	"strconv"
	"strings"
)

// TokensReport is /tokens: the session's tokens, the cache hit rate and
// the latest request against model's context window.
func (m *Meter) TokensReport(model string) string {
	u := m.Session
	opt := func(p *int) string {
		if p == nil {
			return "not reported"
		}
		return strconv.Itoa(*p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Session tokens (%s):\n", m.RequestsText())
	fmt.Fprintf(&b, "  input: %d (cache hit %s, miss %s)\n", u.InputTokens, opt(u.PromptCacheHitTokens), opt(u.PromptCacheMissTokens))
	fmt.Fprintf(&b, "  output: %d (reasoning %s)\n", u.OutputTokens, opt(u.ReasoningTokens))
	if pct, ok := m.CacheHitPercent(); ok {
		fmt.Fprintf(&b, "  cache hit rate: %d%%\n", pct)
	}
	window := m.ContextWindow(model)
	fmt.Fprintf(&b, "Latest request: %s input tokens", FormatTokens(m.LastInput))
	if window > 0 {
		fmt.Fprintf(&b, " of a %s context window", FormatTokens(window))
	}
	return b.String()
}

// CostReport is /cost: the session's cost, model's prices, and the
// sub-agents' costs by model (kids).
func (m *Meter) CostReport(model string, kids []ModelCost) string {
	p, ok := m.Price(model)
	var b strings.Builder
	fmt.Fprintf(&b, "Session cost: %s (%s)\n", FormatCost(m.Cost), m.RequestsText())
	if ok {
		fmt.Fprintf(&b, "Prices for %s (USD per 1M tokens): input %.4g, cached input %.4g, output %.4g\n",
			model, p.Input, p.CachedInput, p.Output)
	} else {
		fmt.Fprintf(&b, "No price known for %s; add [pricing.\"%s\"] to config.toml.\n", model, model)
	}
	if m.UnpricedCalls > 0 {
		fmt.Fprintf(&b, "%d request(s) had no price and are not counted.\n", m.UnpricedCalls)
	}
	if len(kids) > 0 {
		_, total := m.Total(kids)
		fmt.Fprintf(&b, "With sub-agents: %s. Sub-agents by model:\n", FormatCost(total))
		for _, k := range kids {
			price := FormatCost(k.Cost)
			if !k.Priced {
				price = "no price known (not counted)"
			}
			fmt.Fprintf(&b, "  %s: %s tok, %s\n", k.Model, FormatTokens(k.Tokens), price)
		}
	}
	b.WriteString("Override prices with [pricing.<model>] input, cached_input, output in ~/.codewhale/config.toml.")
	return b.String()
}
