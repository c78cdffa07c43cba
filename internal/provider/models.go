package provider

import (
	"os"
	"strconv"
	"strings"
)

// ModelInfo is what the client knows about a model.
type ModelInfo struct {
	ID            string
	ContextWindow int  // tokens; 0 when unknown
	Known         bool // listed in the catalogue
}

var catalogue = map[string]int{
	"deepseek-v4-pro":   1_000_000,
	"deepseek-v4-flash": 1_000_000,
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
	w, ok := catalogue[id]
	return ModelInfo{ID: id, ContextWindow: w, Known: ok}, defaultEffort
}

// IsFirstParty reports whether base is an official DeepSeek endpoint.
func IsFirstParty(base string) bool { return isOfficial(base) }

// MaxOutputTokens is the per-model output cap (engine.md §2.2.2 step 9):
// 65 536 for windows of at least 500 000 tokens, else min(window/2, 65 536),
// and 8 192 for models not in the catalogue. CODEWHALE_MAX_OUTPUT_TOKENS
// (legacy DEEPSEEK_MAX_OUTPUT_TOKENS) overrides it.
func MaxOutputTokens(m ModelInfo) int {
	for _, env := range []string{"CODEWHALE_MAX_OUTPUT_TOKENS", "DEEPSEEK_MAX_OUTPUT_TOKENS"} {
		if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv(env))); err == nil && n > 0 {
			return n
		}
	}
	switch {
	case !m.Known:
		return 8192
	case m.ContextWindow >= 500_000:
		return 65536
	default:
		return min(m.ContextWindow/2, 65536)
	}
}
