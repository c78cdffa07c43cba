package fakemodel

import (
	"encoding/json"
	"sync"
)

// prefixCache reports prompt-cache usage the way DeepSeek's context cache
// works: the part of a request's prompt that repeats, from its first byte,
// the prompt of an earlier request is a hit, counted in whole units of 64
// tokens; the rest is a miss. The prompt is read as the model reads it —
// the system message, the tools, then the other messages, each as the
// bytes the client sent — and a token is counted as 4 bytes. The counts are
// an approximation of the tokenizer; the hit share they give depends only
// on how much of each request repeats an earlier one byte for byte.
type prefixCache struct {
	mu   sync.Mutex
	seen [][]byte
}

const (
	bytesPerToken = 4
	cacheUnit     = 64 // tokens
)

// CachePrefixes makes every later reply report prompt tokens and cache
// hits from prefix reuse across the requests this server received,
// replacing the reply's scripted usage.
func (s *Server) CachePrefixes() {
	s.mu.Lock()
	s.cache = &prefixCache{}
	s.mu.Unlock()
}

func (c *prefixCache) usage(raw []byte, completion int) *Usage {
	prompt := promptBytes(raw)
	c.mu.Lock()
	best := 0
	for _, p := range c.seen {
		best = max(best, commonPrefix(p, prompt))
	}
	c.seen = append(c.seen, prompt)
	c.mu.Unlock()
	total := (len(prompt) + bytesPerToken - 1) / bytesPerToken
	hit := best / bytesPerToken / cacheUnit * cacheUnit
	return &Usage{Prompt: total, Completion: completion, CacheHit: hit, CacheMiss: total - hit}
}

// promptBytes is the request's prompt in the model's reading order; the
// raw body when it is not a chat request.
func promptBytes(raw []byte) []byte {
	var body struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    json.RawMessage   `json:"tools"`
	}
	if json.Unmarshal(raw, &body) != nil || len(body.Messages) == 0 {
		return raw
	}
	out := append([]byte(nil), body.Messages[0]...)
	out = append(out, body.Tools...)
	for _, m := range body.Messages[1:] {
		out = append(out, m...)
	}
	return out
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
