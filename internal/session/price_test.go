package session

import (
	"math"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/provider"
)

func TestCost(t *testing.T) {
	t.Parallel()
	million := provider.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}
	tests := []struct {
		name  string
		model string
		usage provider.Usage
		table map[string]config.Price
		want  float64
	}{
		{"pro, no cache report: all input at the miss price", "deepseek-v4-pro", million, nil, 1.32 + 3.96},
		{"pro, cache hits at the cached price", "deepseek-v4-pro",
			provider.Usage{InputTokens: 1_000_000, PromptCacheHitTokens: provider.Int(800_000), OutputTokens: 0}, nil,
			0.8*0.044 + 0.2*1.32},
		{"explicit miss count wins over input minus hits", "deepseek-v4-flash",
			provider.Usage{InputTokens: 1_000_000, PromptCacheHitTokens: provider.Int(500_000), PromptCacheMissTokens: provider.Int(400_000)}, nil,
			0.5*0.006 + 0.4*0.30},
		{"legacy id priced as flash", "deepseek-chat", million, nil, 0.30 + 1.20},
		{"model name case-insensitive", "DeepSeek-V4-Pro", million, nil, 1.32 + 3.96},
		{"config overrides the built-in price", "deepseek-v4-pro", million,
			map[string]config.Price{"deepseek-v4-pro": {Input: 2, CachedInput: 0.1, Output: 8}}, 2 + 8},
		{"partial override keeps the other built-in fields", "deepseek-v4-pro",
			provider.Usage{InputTokens: 1_000_000, PromptCacheHitTokens: provider.Int(1_000_000), OutputTokens: 1_000_000},
			map[string]config.Price{"deepseek-v4-pro": {Output: 5}}, 0.044 + 5},
		{"custom model without cached price: hits cost full input", "my-local",
			provider.Usage{InputTokens: 1_000_000, PromptCacheHitTokens: provider.Int(1_000_000)},
			map[string]config.Price{"my-local": {Input: 0.5, Output: 1}}, 0.5},
		{"unknown model costs nothing", "mystery-model", million, nil, 0},
		{"config keyed by the legacy name it was asked for", "deepseek-chat", million,
			map[string]config.Price{"deepseek-chat": {Input: 1, Output: 1}}, 2},
		{"config key in another case", "my-local", million, map[string]config.Price{"My-Local": {Input: 1, Output: 3}}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Cost(tt.model, tt.usage, tt.table); math.Abs(got-tt.want) > 1e-9 {
				t.Fatalf("Cost = %v, want %v", got, tt.want)
			}
		})
	}
	if _, ok := PriceFor("mystery-model", nil); ok {
		t.Fatal("an unpriced model reported a price")
	}
}

// The meter's price and the route's model table are one definition: the
// same [pricing] table gives the same price through either.
func TestPriceForIsTheModelTablesPrice(t *testing.T) {
	t.Parallel()
	table := map[string]config.Price{"deepseek-v4-pro": {Output: 5}, "my-local": {Input: 0.5, Output: 1}}
	cfg := &config.Config{File: config.File{Pricing: table}}
	mt := cfg.ModelTable()
	mt.Live = nil
	for _, id := range []string{"deepseek-v4-pro", "deepseek-v4-flash", "my-local", "mystery-model"} {
		p, ok := PriceFor(id, table)
		info, _ := mt.Resolve(id, true)
		if ok != info.Priced || p.Input != info.Price.Input || p.CachedInput != info.Price.CachedInput || p.Output != info.Price.Output {
			t.Errorf("%s: PriceFor %+v %v, model table %+v %v", id, p, ok, info.Price, info.Priced)
		}
	}
}
