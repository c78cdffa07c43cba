package provider

import (
	"strings"
)

// ModelInfo is what the client knows about a model.
type ModelInfo struct {
	ID            string
	ContextWindow int  // tokens; 0 when unknown
	Known         bool // listed in the model table
}

// Price is a model's list price in USD per million tokens: Input is a
// cache-miss input token, CachedInput a cache-hit one.
type Price struct {
	Input, CachedInput, Output float64
}

// ModelFacts is one row of the model table.
type ModelFacts struct {
	ID            string
	Hint          string // one line for the model picker
	ContextWindow int    // tokens
	Price         Price
	// BilledAs names extra ids billed like this model (legacy spellings);
	// they are not offered in the picker.
	BilledAs []string
}

// models is the one table of model facts (CONTRACT.md §10.9): the session
// meter prices from it, the picker lists it, the request sizes output and
// the context meter from it. Prices are DeepSeek's published list prices at
// peak hours (https://api-docs.deepseek.com/quick_start/pricing, checked
// 2026-10); off-peak hours bill at half, so the meter is an upper bound.
// Config extends it: [pricing.<model>] adds or overrides a price and a
// context_window, [providers.<name>] context_window overrides the window.
var models = []ModelFacts{
	{ID: "deepseek-v4-pro", Hint: "strongest; default", ContextWindow: 1_000_000,
		Price: Price{Input: 1.32, CachedInput: 0.044, Output: 3.96}},
	{ID: "deepseek-v4-flash", Hint: "faster and cheaper", ContextWindow: 1_000_000,
		Price: Price{Input: 0.30, CachedInput: 0.006, Output: 1.20}, BilledAs: []string{"deepseek-flash"}},
}

// Models returns the model table in picker order.
func Models() []ModelFacts { return append([]ModelFacts(nil), models...) }

// LookupModel finds the row of id (exact, or a BilledAs spelling).
func LookupModel(id string) (ModelFacts, bool) {
	for _, m := range models {
		if m.ID == id {
			return m, true
		}
		for _, alt := range m.BilledAs {
			if alt == id {
				return m, true
			}
		}
	}
	return ModelFacts{}, false
}

// ResolveModel maps legacy ids onto current ones on the first-party route
// and returns what is known about the model. defaultEffort is the reasoning
// tier implied by a legacy id ("" when none).
func ResolveModel(id string, firstParty bool) (info ModelInfo, defaultEffort string) {
	switch strings.ToLower(id) {
	case "deepseek-chat":
		if firstParty {
			id, defaultEffort = "deepseek-v4-flash", "off"
		}
	case "deepseek-reasoner":
		if firstParty {
			id, defaultEffort = "deepseek-v4-flash", "high"
		}
	}
	for _, m := range models {
		if m.ID == id {
			return ModelInfo{ID: id, ContextWindow: m.ContextWindow, Known: true}, defaultEffort
		}
	}
	return ModelInfo{ID: id}, defaultEffort
}

// IsFirstParty reports whether base is an official DeepSeek endpoint.
func IsFirstParty(base string) bool { return isOfficial(base) }

// MaxOutputTokens is the per-model output cap (CONTRACT.md §9.2): 65 536
// for windows of at least 500 000 tokens, else min(window/2, 65 536), and
// 8 192 for models not in the table. Config's CODEWHALE_MAX_OUTPUT_TOKENS
// replaces it through Config.MaxOutputTokens.
func MaxOutputTokens(m ModelInfo) int {
	switch {
	case !m.Known:
		return 8192
	case m.ContextWindow >= 500_000:
		return 65536
	default:
		return min(m.ContextWindow/2, 65536)
	}
}
