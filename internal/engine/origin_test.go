package engine

import (
	"testing"

	"github.com/codewhale/codewhale/internal/provider"
)

// TestCompactCutSkipsEngineMessages: the recent turns compaction keeps start
// at prompts a person typed; a jobs notice (marked, or as old sessions hold
// it) is not one.
func TestCompactCutSkipsEngineMessages(t *testing.T) {
	t.Parallel()
	typed := func(s string) provider.Message {
		return provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(s), provider.TextBlock("<turn_meta/>")}}
	}
	reply := provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock("ok")}}
	msgs := []provider.Message{typed("one"), reply, typed("two"), reply,
		provider.EngineText("1 background shell job finished. x"), reply,
		provider.UserText("2 background shell jobs finished. x"), reply, typed("three"), reply}
	if cut := compactCut(msgs); cut != 2 {
		t.Fatalf("cut at %d, want 2 (the turn of \"two\")", cut)
	}
}
