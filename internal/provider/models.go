package provider

import (
	"strings"
	"sync"
)

// ModelInfo is what the client knows about a model (CONTRACT.md §10.9).
// Fields a source did not state keep their conservative default, and
// Known is false when no source listed the model at all.
type ModelInfo struct {
	ID            string
	ContextWindow int // tokens; 0 when unknown (AssumedContextWindow applies)
	MaxOutput     int // output cap the model states; 0 = derived (MaxOutputTokens)
	Vision        bool
	Reasoning     bool // the model streams reasoning (reasoning_content or reasoning)
	Tools         bool // tool calling; assumed for a model no source lists
	Price         Price
	Priced        bool   // Price is known (a local server's models cost 0)
	Known         bool   // a source listed the model
	Source        string // built-in, config, server, assumed
}

// AssumedContextWindow is the window of a model no source states: small
// enough for any current chat model, so compaction starts before an
// unknown server overflows (the header says `ctx ? 128k assumed`).
const AssumedContextWindow = 128_000

// Window is the context window, AssumedContextWindow when unknown.
func (m ModelInfo) Window() int {
	if m.ContextWindow > 0 {
		return m.ContextWindow
	}
	return AssumedContextWindow
}

// Price is a model's list price in USD per million tokens: Input is a
// cache-miss input token, CachedInput a cache-hit one.
type Price struct {
	Input, CachedInput, Output float64
}

// ModelFacts is one row of the built-in model table.
type ModelFacts struct {
	ID            string
	Hint          string // one line for the model picker
	ContextWindow int    // tokens
	Vision        bool
	Reasoning     bool
	Price         Price
	// BilledAs names extra ids billed like this model (legacy spellings);
	// they are not offered in the picker.
	BilledAs []string
}

// models is the built-in model table (CONTRACT.md §10.9): the session
// meter prices from it, the picker lists it, the request sizes output and
// the context meter from it. Prices are DeepSeek's published list prices at
// peak hours (https://api-docs.deepseek.com/quick_start/pricing, checked
// 2026-10); off-peak hours bill at half, so the meter is an upper bound.
// Config extends it ([models.<id>], and the older [pricing.<model>] and
// [providers.<name>] context_window) and the server's /models list fills in
// models it does not know (ModelTable).
var models = []ModelFacts{
	{ID: "deepseek-v4-pro", Hint: "strongest; default", ContextWindow: 1_000_000, Reasoning: true,
		Price: Price{Input: 1.32, CachedInput: 0.044, Output: 3.96}},
	{ID: "deepseek-v4-flash", Hint: "faster and cheaper", ContextWindow: 1_000_000, Reasoning: true,
		Price: Price{Input: 0.30, CachedInput: 0.006, Output: 1.20}, BilledAs: []string{"deepseek-flash"}},
}

// Models returns the built-in model table in picker order.
func Models() []ModelFacts { return append([]ModelFacts(nil), models...) }

// LookupModel finds the built-in row of id (exact, or a BilledAs spelling).
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

// legacyID maps legacy ids onto current ones on the first-party route;
// defaultEffort is the reasoning tier the legacy id implied ("" = none).
func legacyID(id string, firstParty bool) (string, string) {
	if !firstParty {
		return id, ""
	}
	switch strings.ToLower(id) {
	case "deepseek-chat":
		return "deepseek-v4-flash", "off"
	case "deepseek-reasoner":
		return "deepseek-v4-flash", "high"
	}
	return id, ""
}

// ResolveModel is ModelTable.Resolve over the built-in table alone.
func ResolveModel(id string, firstParty bool) (info ModelInfo, defaultEffort string) {
	return (*ModelTable)(nil).Resolve(id, firstParty)
}

// IsFirstParty reports whether base is an official DeepSeek endpoint.
func IsFirstParty(base string) bool { return isOfficial(base) }

// MaxOutputTokens is the per-model output cap (CONTRACT.md §9.2): the
// model's stated cap when a source gives one; else 65 536 for windows of
// at least 500 000 tokens, min(window/2, 65 536) below, and 8 192 for a
// model no source lists. CODEWHALE_MAX_OUTPUT_TOKENS replaces it through
// Config.MaxOutputTokens.
func MaxOutputTokens(m ModelInfo) int {
	switch {
	case m.MaxOutput > 0:
		return m.MaxOutput
	case !m.Known || m.ContextWindow <= 0:
		return 8192
	case m.ContextWindow >= 500_000:
		return 65536
	default:
		return min(m.ContextWindow/2, 65536)
	}
}

// ModelOverride is one [models.<id>] table: each set field replaces what
// the other sources say.
type ModelOverride struct {
	ContextWindow, MaxOutput   int
	Vision, Reasoning, Tools   *bool
	Input, CachedInput, Output *float64
}

// ModelTable is the one answer to "what can this model do and what does it
// cost" for a route (CONTRACT.md §10.9): the built-in rows, then what the
// server's /models says of models not built in, then config overrides; a
// fact no source gives keeps its conservative default and Known says
// whether any source listed the model. A nil table is the built-in rows.
type ModelTable struct {
	Overrides map[string]ModelOverride
	// Live returns the server's model list (the cached /models answer);
	// it is called at most once, on the first lookup of a model that is
	// not built in. Nil: no list.
	Live func() []LiveModel
	// Free: the route is a local server; its models cost nothing per
	// token.
	Free bool
	// ContextWindow, when positive, is the route's window for every model
	// no [models.<id>] states one for ([providers.<name>] context_window).
	ContextWindow int

	once sync.Once
	live map[string]LiveModel
}

func (t *ModelTable) liveRow(id string) (LiveModel, bool) {
	if t == nil || t.Live == nil {
		return LiveModel{}, false
	}
	t.once.Do(func() {
		t.live = map[string]LiveModel{}
		for _, m := range t.Live() {
			t.live[m.ID] = m
		}
	})
	m, ok := t.live[id]
	return m, ok
}

// Resolve maps a legacy id (first-party route only) and returns the
// model's facts, with the reasoning tier a legacy id implies.
func (t *ModelTable) Resolve(id string, firstParty bool) (info ModelInfo, defaultEffort string) {
	given := id
	id, defaultEffort = legacyID(id, firstParty)
	info = ModelInfo{ID: id, Tools: true, Source: "assumed"}
	if row, ok := LookupModel(id); ok && row.ID == id {
		info.ContextWindow, info.Vision, info.Reasoning = row.ContextWindow, row.Vision, row.Reasoning
		info.Price, info.Priced, info.Known, info.Source = row.Price, true, true, "built-in"
	} else if live, ok := t.liveRow(id); ok {
		live.apply(&info)
	}
	if t != nil {
		o, ok := t.override(id, given)
		if ok {
			o.apply(&info)
		}
		if t.ContextWindow > 0 && o.ContextWindow == 0 {
			info.ContextWindow = t.ContextWindow
		}
		if t.Free {
			info.Price, info.Priced = Price{}, true
		}
	}
	return info, defaultEffort
}

// override is the config table for a model: the one keyed by its id, else
// by the name it was asked for (a legacy spelling), else one whose key
// differs only in case.
func (t *ModelTable) override(id, given string) (ModelOverride, bool) {
	for _, k := range []string{id, given} {
		if o, ok := t.Overrides[k]; ok {
			return o, true
		}
	}
	for k, o := range t.Overrides {
		if strings.EqualFold(k, id) || strings.EqualFold(k, given) {
			return o, true
		}
	}
	return ModelOverride{}, false
}

func (o ModelOverride) apply(m *ModelInfo) {
	m.Known, m.Source = true, "config"
	if o.ContextWindow > 0 {
		m.ContextWindow = o.ContextWindow
	}
	if o.MaxOutput > 0 {
		m.MaxOutput = o.MaxOutput
	}
	for _, f := range []struct {
		src *bool
		dst *bool
	}{{o.Vision, &m.Vision}, {o.Reasoning, &m.Reasoning}, {o.Tools, &m.Tools}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	if o.Input == nil && o.Output == nil && o.CachedInput == nil {
		return
	}
	p := m.Price
	if !m.Priced {
		p = Price{}
	}
	if o.Input != nil {
		p.Input = *o.Input
	}
	if o.Output != nil {
		p.Output = *o.Output
	}
	switch {
	case o.CachedInput != nil:
		p.CachedInput = *o.CachedInput
	case !m.Priced:
		p.CachedInput = p.Input
	}
	m.Price, m.Priced = p, true
}
