// Package usage keeps the session's token accounting for the status bar,
// /tokens and /cost: totals from the engine's TurnUsage events, the input
// size of the latest request against the model's context window, the
// prompt-cache hit rate, and the cost from a price table (built-in rows for
// the default DeepSeek models, overridden by config.toml [pricing.<model>];
// the table itself lives in the session store).
package usage

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/session"
)

// Meter accumulates a session's usage.
type Meter struct {
	// Prices override the built-in table, by model id.
	Prices map[string]config.Price
	// Window overrides the context window (providers.<p>.context_window).
	Window int
	// Table, when set, is the route's model table (CONTRACT.md §10.9): it
	// answers prices and windows instead of Prices and Window. FirstParty
	// says the route is DeepSeek's own (legacy ids map there).
	Table      *provider.ModelTable
	FirstParty bool

	Session  provider.Usage
	Requests int // requests made in this run
	// Resumed is set when Session and Cost start from a saved session's
	// totals, whose request count was not stored.
	Resumed       bool
	LastInput     int    // input tokens of the latest request
	LastModel     string // model of the latest request
	Cost          float64
	UnpricedCalls int // requests whose model has no price, or with no usage
	Unreported    int // requests whose server reported no usage
}

// Reset empties the meter for a new session and keeps how it prices and
// sizes: Prices, Window, Table and FirstParty.
func (m *Meter) Reset() {
	*m = Meter{Prices: m.Prices, Window: m.Window, Table: m.Table, FirstParty: m.FirstParty}
}

// Resume starts the meter from a saved session's totals. The usage is
// copied: its optional counters are pointers, and sharing them with the
// engine's copy counted every later cache hit twice.
func (m *Meter) Resume(u provider.Usage, cost float64) {
	m.Session = provider.Usage{}
	m.Session.Add(&u)
	m.Cost, m.Resumed = cost, true
}

// RequestsText is `3 request(s)`, or for a resumed session how many were
// made since resuming.
func (m *Meter) RequestsText() string {
	if m.Resumed {
		return fmt.Sprintf("%d request(s) since resuming, plus the saved session's", m.Requests)
	}
	return fmt.Sprintf("%d request(s)", m.Requests)
}

// Price returns the price row for model (the session store's table, the
// one definition of prices) and whether one exists.
func (m *Meter) Price(model string) (config.Price, bool) {
	if m.Table == nil {
		return session.PriceFor(model, m.Prices)
	}
	info, _ := m.Table.Resolve(model, m.FirstParty)
	p := info.Price
	return config.Price{Input: p.Input, CachedInput: p.CachedInput, Output: p.Output}, info.Priced
}

// Add records one provider call's usage for model.
func (m *Meter) Add(u provider.Usage, model string) {
	m.Session.Add(&u)
	m.Requests++
	m.LastInput, m.LastModel = u.InputTokens, model
	cost, ok := m.costOf(model, u)
	if !ok {
		m.UnpricedCalls++
		return
	}
	m.Cost += cost
}

// costOf is usage's price on model, and whether model has a price: the one
// place the meter prices anything (the session store's table).
func (m *Meter) costOf(model string, u provider.Usage) (float64, bool) {
	p, ok := m.Price(model)
	if !ok {
		return 0, false
	}
	return session.CostAt(p, u), true
}

// ModelCost is one model's share of the sub-agents' usage.
type ModelCost struct {
	Model  string
	Tokens int
	Cost   float64
	Priced bool
}

// Children prices the sub-agents' usage model by model (sorted by model).
func (m *Meter) Children(byModel map[string]provider.Usage) []ModelCost {
	out := make([]ModelCost, 0, len(byModel))
	for model, u := range byModel {
		cost, ok := m.costOf(model, u)
		out = append(out, ModelCost{Model: model, Tokens: u.InputTokens + u.OutputTokens, Cost: cost, Priced: ok})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out
}

// Total is the session's own tokens and cost plus its sub-agents', each
// priced at the model it ran on.
func (m *Meter) Total(children []ModelCost) (tokens int, cost float64) {
	tokens, cost = m.Tokens(), m.Cost
	for _, c := range children {
		tokens, cost = tokens+c.Tokens, cost+c.Cost
	}
	return tokens, cost
}

// TotalText is Total with the cost worded as CostText words it: a part
// with no price makes it `+ ?`, never a wrong sum.
func (m *Meter) TotalText(children []ModelCost) (tokens int, cost string) {
	if len(children) == 0 {
		return m.Tokens(), m.CostText()
	}
	tokens, sum := m.Total(children)
	unpriced := m.UnpricedCalls > 0
	for _, c := range children {
		unpriced = unpriced || !c.Priced
	}
	if unpriced {
		return tokens, FormatCost(sum) + " + ?"
	}
	return tokens, FormatCost(sum)
}

// AddUnreported records a request whose server reported no usage: its
// tokens and cost are unknown, so the cost reads `+ ?` from here on.
func (m *Meter) AddUnreported() {
	m.Requests++
	m.UnpricedCalls++
	m.Unreported++
}

// CostText is the session cost for the header: `$ ?` when no request had
// a price, the priced part `+ ?` when some had none — never a wrong sum.
func (m *Meter) CostText() string {
	switch {
	case m.UnpricedCalls > 0 && m.UnpricedCalls >= m.Requests && m.Cost == 0:
		return "$ ?"
	case m.UnpricedCalls > 0:
		return FormatCost(m.Cost) + " + ?"
	}
	return FormatCost(m.Cost)
}

// WindowAssumed reports that no source states model's context window, so
// the meter runs against provider.AssumedContextWindow.
func (m *Meter) WindowAssumed(model string) bool {
	if m.Table == nil || m.Window > 0 {
		return false
	}
	info, _ := m.Table.Resolve(model, m.FirstParty)
	return info.ContextWindow == 0
}

// ContextWindow is the window of model: the price row's context_window,
// then the provider table override, then the model catalogue; 0 when
// unknown.
func (m *Meter) ContextWindow(model string) int {
	if p, ok := m.Prices[model]; ok && p.ContextLimit > 0 {
		return p.ContextLimit
	}
	if m.Window > 0 {
		return m.Window
	}
	if m.Table != nil {
		info, _ := m.Table.Resolve(model, m.FirstParty)
		return info.Window()
	}
	info, _ := provider.ResolveModel(model, true)
	return info.ContextWindow
}

// CacheHitPercent is the session's prompt-cache hit rate, when reported.
func (m *Meter) CacheHitPercent() (int, bool) {
	u := m.Session
	if u.PromptCacheHitTokens == nil || u.InputTokens == 0 {
		return 0, false
	}
	return int(math.Round(100 * float64(*u.PromptCacheHitTokens) / float64(u.InputTokens))), true
}

// Tokens is the session's total of input and output tokens.
func (m *Meter) Tokens() int { return m.Session.InputTokens + m.Session.OutputTokens }

// FormatTokens renders a count as 950, 41.2k or 1.0M.
func FormatTokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// FormatWindow renders a window as people name it: 128k, 1M.
func FormatWindow(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return FormatTokens(n)
}

// FormatCost renders dollars with enough precision for small sessions.
func FormatCost(c float64) string {
	switch {
	case c == 0:
		return "$0.00"
	case c < 0.01:
		return fmt.Sprintf("$%.4f", c)
	case c < 10:
		return fmt.Sprintf("$%.3f", c)
	}
	return fmt.Sprintf("$%.2f", c)
}

// ContextMeter renders `<used>/<max> [■■□□□] NN%` (CONTRACT.md §14.2): five
// cells filled ceil(percent/20). It is "" when the window is unknown.
func ContextMeter(used, window int) string {
	if window <= 0 {
		return ""
	}
	pct := 100 * float64(used) / float64(window)
	filled := min(int(math.Ceil(pct/20)), 5)
	return fmt.Sprintf("%s/%s [%s%s] %d%%", FormatTokens(used), FormatTokens(window),
		strings.Repeat("■", filled), strings.Repeat("□", 5-filled), int(math.Round(pct)))
}

// CompactMeter is the meter without its bar: `41.2k/1.0M 4%`.
func CompactMeter(used, window int) string {
	if window <= 0 {
		return ""
	}
	return fmt.Sprintf("%s/%s %d%%", FormatTokens(used), FormatTokens(window),
		int(math.Round(100*float64(used)/float64(window))))
}
