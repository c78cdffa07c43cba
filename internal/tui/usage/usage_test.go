package usage_test

import (
	"math"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tui/usage"
)

func TestContextMeterFillsCeilPercentOverTwenty(t *testing.T) {
	t.Parallel()
	cases := []struct {
		used, window int
		want         string
	}{
		{41_200, 1_000_000, "41.2k/1.0M [■□□□□] 4%"},
		{0, 128_000, "0/128.0k [□□□□□] 0%"},
		{64_000, 128_000, "64.0k/128.0k [■■■□□] 50%"},
		{128_000, 128_000, "128.0k/128.0k [■■■■■] 100%"},
		{10, 0, ""},
	}
	for _, c := range cases {
		if got := usage.ContextMeter(c.used, c.window); got != c.want {
			t.Errorf("ContextMeter(%d, %d) = %q, want %q", c.used, c.window, got, c.want)
		}
	}
}

func TestMeterAddsUsageAndPricesCacheHitsApart(t *testing.T) {
	t.Parallel()
	prices := map[string]config.Price{"my-model": {Input: 2, CachedInput: 0.5, Output: 10, ContextLimit: 64_000}}
	m := usage.Meter{Prices: prices}
	m.Add(provider.Usage{InputTokens: 1_000_000, OutputTokens: 100_000, PromptCacheHitTokens: provider.Int(600_000),
		PromptCacheMissTokens: provider.Int(400_000)}, "my-model")
	// 600k hits at 0.5 + 400k misses at 2 + 100k out at 10 = 0.3 + 0.8 + 1.0.
	if math.Abs(m.Cost-2.1) > 1e-9 {
		t.Errorf("cost = %v, want 2.1", m.Cost)
	}
	if pct, ok := m.CacheHitPercent(); !ok || pct != 60 {
		t.Errorf("cache = %d %v", pct, ok)
	}
	if m.LastInput != 1_000_000 || m.Tokens() != 1_100_000 || m.Requests != 1 {
		t.Errorf("meter = %+v", m)
	}
	if w := m.ContextWindow("my-model"); w != 64_000 {
		t.Errorf("window from the price row = %d", w)
	}
	if w := m.ContextWindow("deepseek-v4-pro"); w != 1_000_000 {
		t.Errorf("window from the model catalogue = %d", w)
	}
	m.Add(provider.Usage{InputTokens: 10}, "unknown-model")
	if m.UnpricedCalls != 1 {
		t.Errorf("unpriced = %d", m.UnpricedCalls)
	}
}

func TestDefaultModelsHaveBuiltInPrices(t *testing.T) {
	t.Parallel()
	var m usage.Meter
	for _, model := range []string{"deepseek-v4-pro", "deepseek-v4-flash"} {
		if p, ok := m.Price(model); !ok || p.Input <= 0 || p.Output <= 0 {
			t.Errorf("no built-in price for %s: %+v", model, p)
		}
	}
}

func TestFormatTokensAndCost(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{950: "950", 41_200: "41.2k", 1_000_000: "1.0M"} {
		if got := usage.FormatTokens(n); got != want {
			t.Errorf("FormatTokens(%d) = %q", n, got)
		}
	}
	for c, want := range map[float64]string{0: "$0.00", 0.00012: "$0.0001", 1.2345: "$1.234", 12.5: "$12.50"} {
		if got := usage.FormatCost(c); got != want {
			t.Errorf("FormatCost(%v) = %q, want %q", c, got, want)
		}
	}
}

// A resumed meter owns its counters: the engine adding the same request to
// its copy of the saved usage must not count twice here (issue 14: a 60 %
// hit rate showed as 90 %, hits above the input).
func TestResumedMeterDoesNotShareCountersWithTheSavedUsage(t *testing.T) {
	t.Parallel()
	saved := provider.Usage{InputTokens: 100, PromptCacheHitTokens: provider.Int(60), PromptCacheMissTokens: provider.Int(40)}
	var m usage.Meter
	m.Resume(saved, 0.5)
	next := provider.Usage{InputTokens: 100, PromptCacheHitTokens: provider.Int(60), PromptCacheMissTokens: provider.Int(40)}
	saved.Add(&next) // the engine's accounting
	m.Add(next, "deepseek-v4-pro")
	if *m.Session.PromptCacheHitTokens != 120 || *m.Session.PromptCacheMissTokens != 80 || m.Session.InputTokens != 200 {
		t.Errorf("resumed totals = %+v hit %d miss %d", m.Session, *m.Session.PromptCacheHitTokens, *m.Session.PromptCacheMissTokens)
	}
	if pct, _ := m.CacheHitPercent(); pct != 60 {
		t.Errorf("hit rate %d%%, want 60%%", pct)
	}
	if got := m.RequestsText(); got != "1 request(s) since resuming, plus the saved session's" {
		t.Errorf("RequestsText = %q", got)
	}
}

// Sub-agents are priced at the model each ran on, and the total adds
// them to the session's own usage; a model with no price is marked so.
func TestChildrenArePricedPerModel(t *testing.T) {
	t.Parallel()
	prices := map[string]config.Price{"big": {Input: 10, CachedInput: 10, Output: 10}, "small": {Input: 1, CachedInput: 1, Output: 1}}
	m := usage.Meter{Prices: prices}
	m.Add(provider.Usage{InputTokens: 1_000_000}, "big")
	kids := m.Children(map[string]provider.Usage{"small": {InputTokens: 2_000_000, OutputTokens: 1_000_000},
		"big": {InputTokens: 100_000}, "nobody-knows": {InputTokens: 5}})
	if len(kids) != 3 || kids[0].Model != "big" || math.Abs(kids[0].Cost-1) > 1e-9 || kids[1].Priced ||
		kids[2].Model != "small" || math.Abs(kids[2].Cost-3) > 1e-9 || kids[2].Tokens != 3_000_000 {
		t.Fatalf("children %+v", kids)
	}
	tokens, cost := m.Total(kids)
	if tokens != 1_000_000+3_100_005 || math.Abs(cost-14) > 1e-9 {
		t.Errorf("total %d tokens, $%v; want 4,100,005 and $14", tokens, cost)
	}
}

func TestResetEmptiesTheMeterAndKeepsHowItPrices(t *testing.T) {
	table := &provider.ModelTable{}
	m := usage.Meter{Prices: map[string]config.Price{"m": {}}, Window: 4096, Table: table, FirstParty: true,
		Requests: 3, LastInput: 900, Cost: 1.5, UnpricedCalls: 1, Resumed: true}
	m.Reset()
	if m.Requests != 0 || m.LastInput != 0 || m.Cost != 0 || m.UnpricedCalls != 0 || m.Resumed {
		t.Fatalf("usage survived the reset: %+v", m)
	}
	if m.Window != 4096 || m.Table != table || !m.FirstParty || len(m.Prices) != 1 {
		t.Fatalf("the pricing was lost: %+v", m)
	}
}
