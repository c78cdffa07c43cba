package session

import (
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/provider"
)

// Meta is a session's metadata (CONTRACT.md §12.2).
type Meta struct {
	ID              string         `json:"id"`
	Title           string         `json:"title"`
	CreatedAt       time.Time      `json:"created_at"`
	UpdatedAt       time.Time      `json:"updated_at"`
	MessageCount    int            `json:"message_count"`
	TotalTokens     int            `json:"total_tokens"`
	Model           string         `json:"model"`
	ModelProvider   string         `json:"model_provider"`
	Workspace       string         `json:"workspace"`
	Mode            string         `json:"mode"`
	Cost            float64        `json:"cost"` // USD, from the price table (see Cost)
	ParentSessionID string         `json:"parent_session_id,omitempty"`
	Archived        bool           `json:"archived,omitempty"`
	Usage           provider.Usage `json:"usage"`             // token totals behind TotalTokens and Cost
	Preview         string         `json:"preview,omitempty"` // start of the first user message, for search
	// NewerSchema is the schema_version of a session written by a newer
	// codewhale; such a session is listed but cannot be opened.
	NewerSchema int `json:"newer_schema,omitempty"`
}

// Limits of the derived text fields, in runes.
const (
	maxTitle   = 100
	maxPreview = 300
)

func metaOf(h *record, st state, count int, updated time.Time) Meta {
	m := Meta{ID: h.ID, CreatedAt: h.CreatedAt, UpdatedAt: updated, MessageCount: count,
		ParentSessionID: h.Parent, Title: st.Title, Preview: st.Preview, Model: st.Model,
		ModelProvider: st.ModelProvider, Workspace: st.Workspace, Mode: st.Mode, Cost: st.Cost,
		Archived: st.Archived, Usage: cloneUsage(st.Usage)}
	m.TotalTokens = st.Usage.InputTokens + st.Usage.OutputTokens
	if m.UpdatedAt.IsZero() {
		m.UpdatedAt = m.CreatedAt
	}
	return m
}

// promptText is the text a person typed in m: the text blocks of a user
// message, without the engine's <turn_meta> block, runtime notices or a
// compaction summary. It is "" for tool results and engine-made messages.
func promptText(m provider.Message) string { return m.PromptText() }

// titleAndPreview derives the title (≤100 runes, one line) and the search
// preview from the first message a person typed, or "" when msgs has none.
func titleAndPreview(msgs []provider.Message) (title, preview string) {
	for _, m := range msgs {
		if s := promptText(m); s != "" {
			flat := strings.Join(strings.Fields(s), " ")
			return clip(flat, maxTitle), clip(flat, maxPreview)
		}
	}
	return "", ""
}

// clip shortens s to at most n runes, ending with … when cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

func cloneUsage(u provider.Usage) provider.Usage {
	c := u
	for _, p := range []**int{&c.PromptCacheHitTokens, &c.PromptCacheMissTokens, &c.ReasoningTokens,
		&c.PromptCacheWriteTok, &c.ReasoningReplayTokens} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
	return c
}

// usageSince returns cur - prev. ok is false when any count went down, which
// means cur is not a continuation of prev (the engine restarted its totals).
func usageSince(cur, prev provider.Usage) (d provider.Usage, ok bool) {
	d.InputTokens = cur.InputTokens - prev.InputTokens
	d.OutputTokens = cur.OutputTokens - prev.OutputTokens
	ok = d.InputTokens >= 0 && d.OutputTokens >= 0
	pairs := []struct{ dst, c, p **int }{
		{&d.PromptCacheHitTokens, &cur.PromptCacheHitTokens, &prev.PromptCacheHitTokens},
		{&d.PromptCacheMissTokens, &cur.PromptCacheMissTokens, &prev.PromptCacheMissTokens},
		{&d.ReasoningTokens, &cur.ReasoningTokens, &prev.ReasoningTokens},
		{&d.PromptCacheWriteTok, &cur.PromptCacheWriteTok, &prev.PromptCacheWriteTok},
		{&d.ReasoningReplayTokens, &cur.ReasoningReplayTokens, &prev.ReasoningReplayTokens},
	}
	for _, p := range pairs {
		c, pv := *p.c, *p.p
		switch {
		case c == nil && pv == nil:
		case c == nil:
			ok = false
		default:
			v := *c
			if pv != nil {
				v -= *pv
			}
			ok = ok && v >= 0
			*p.dst = &v
		}
	}
	return d, ok
}

func usageZero(u provider.Usage) bool { return !u.Reported() && u.ReasoningReplayTokens == nil }
