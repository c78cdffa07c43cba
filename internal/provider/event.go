package provider

// EventKind names a stream event. Events follow the Chat Completions
// stream as it arrives: text and reasoning deltas, tool-call fragments, the
// finish reason and usage.
type EventKind int

const (
	EvMessageStart EventKind = iota
	EvTextDelta
	EvThinkingDelta
	// EvToolCallDelta is a piece of tool call number Call (0 for the
	// response's first call): its first piece carries ToolID and ToolName,
	// each piece the next part of its JSON arguments in Text.
	EvToolCallDelta
	EvMessageDelta
	EvMessageStop
	// EvRetry announces that the request failed and will be re-sent after
	// Retry.Wait; with Retry.Retract, what the failed attempt streamed is
	// void. The next Recv waits, then reads the new attempt.
	EvRetry
)

// StreamEvent is one event of a model stream. Fields not used by Kind are zero.
type StreamEvent struct {
	Kind       EventKind
	Call       int    // EvToolCallDelta: the call's position in the response
	ToolID     string // EvToolCallDelta, first piece of a call
	ToolName   string // EvToolCallDelta, first piece of a call (decoded)
	Text       string // text, thinking or a piece of the arguments
	StopReason string // EvMessageDelta
	Usage      *Usage // EvMessageStart, EvMessageDelta (nil when not reported)
	Retry      *RetryInfo
}

// Usage is token accounting for one provider call (CONTRACT.md §10.8). Optional
// counts are nil when the provider did not report them; they are never
// fabricated as zero.
type Usage struct {
	InputTokens           int  `json:"input_tokens"`
	OutputTokens          int  `json:"output_tokens"`
	PromptCacheHitTokens  *int `json:"prompt_cache_hit_tokens,omitempty"`
	PromptCacheMissTokens *int `json:"prompt_cache_miss_tokens,omitempty"`
	ReasoningTokens       *int `json:"reasoning_tokens,omitempty"`
	PromptCacheWriteTok   *int `json:"prompt_cache_write_tokens,omitempty"`
	ReasoningReplayTokens *int `json:"reasoning_replay_tokens,omitempty"`
}

// Reported reports whether any usage field is non-zero or present.
func (u *Usage) Reported() bool {
	if u == nil {
		return false
	}
	return u.InputTokens != 0 || u.OutputTokens != 0 || u.PromptCacheHitTokens != nil ||
		u.PromptCacheMissTokens != nil || u.ReasoningTokens != nil || u.PromptCacheWriteTok != nil
}

// Add accumulates o into u. An optional total stays nil until some step
// reports it.
func (u *Usage) Add(o *Usage) {
	if o == nil {
		return
	}
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	addOpt(&u.PromptCacheHitTokens, o.PromptCacheHitTokens)
	addOpt(&u.PromptCacheMissTokens, o.PromptCacheMissTokens)
	addOpt(&u.ReasoningTokens, o.ReasoningTokens)
	addOpt(&u.PromptCacheWriteTok, o.PromptCacheWriteTok)
	addOpt(&u.ReasoningReplayTokens, o.ReasoningReplayTokens)
}

func addOpt(dst **int, v *int) {
	if v == nil {
		return
	}
	if *dst == nil {
		n := 0
		*dst = &n
	}
	**dst += *v
}

// Int returns a pointer to n, for the optional fields of Usage.
func Int(n int) *int { return &n }

// wireUsage is the usage object of a Chat Completions chunk or response.
type wireUsage struct {
	PromptTokens          *int `json:"prompt_tokens"`
	InputTokens           *int `json:"input_tokens"`
	CompletionTokens      *int `json:"completion_tokens"`
	OutputTokens          *int `json:"output_tokens"`
	TotalTokens           *int `json:"total_tokens"`
	PromptCacheHitTokens  *int `json:"prompt_cache_hit_tokens"`
	PromptCacheMissTokens *int `json:"prompt_cache_miss_tokens"`
	CacheCreationTokens   *int `json:"cache_creation_input_tokens"`
	PromptTokensDetails   *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens *int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func first(ps ...*int) *int {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return nil
}

func val(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// usage maps the wire usage onto Usage following CONTRACT.md §10.8.
func (w *wireUsage) usage() *Usage {
	if w == nil {
		return nil
	}
	u := &Usage{}
	u.InputTokens = val(first(w.PromptTokens, w.InputTokens))
	u.OutputTokens = val(first(w.CompletionTokens, w.OutputTokens))
	var reasoning *int
	if w.CompletionTokensDetails != nil {
		reasoning = w.CompletionTokensDetails.ReasoningTokens
	}
	if u.OutputTokens == 0 {
		if reasoning != nil {
			u.OutputTokens = *reasoning
		} else if w.TotalTokens != nil && *w.TotalTokens > u.InputTokens {
			u.OutputTokens = *w.TotalTokens - u.InputTokens
		}
	}
	hit := w.PromptCacheHitTokens
	if hit == nil && w.PromptTokensDetails != nil {
		hit = w.PromptTokensDetails.CachedTokens
	}
	u.PromptCacheHitTokens = copyInt(hit)
	switch {
	case w.PromptCacheMissTokens != nil:
		u.PromptCacheMissTokens = copyInt(w.PromptCacheMissTokens)
	case hit != nil:
		u.PromptCacheMissTokens = Int(u.InputTokens - *hit)
	}
	if reasoning != nil && *reasoning <= u.OutputTokens {
		u.ReasoningTokens = copyInt(reasoning)
	}
	u.PromptCacheWriteTok = copyInt(w.CacheCreationTokens)
	return u
}

func copyInt(p *int) *int {
	if p == nil {
		return nil
	}
	return Int(*p)
}
