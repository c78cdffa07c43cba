package engine

import (
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/provider"
)

func typed(s string) provider.Message {
	return provider.Message{Role: provider.RoleUser, Origin: provider.OriginUser,
		Content: []provider.Block{provider.TextBlock(s), provider.TextBlock("<turn_meta>\nx\n</turn_meta>")}}
}

func reply(s string) provider.Message {
	return provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock(s)}}
}

// The cut lands on the message it names even when a compaction shifted
// the indices, and is refused when that message was summarised away.
// CONTRACT.md §8.1: RewindHistory cuts at the message with the typed text even after a compaction shifted indices, and
// is refused when none is left.
func TestCutPointFollowsThePrompt(t *testing.T) {
	t.Parallel()
	msgs := []provider.Message{provider.EngineText("summary"), typed("second"), reply("two"), typed("third"), reply("three")}
	for _, c := range []struct {
		keep   int
		prompt string
		want   int
		err    string
	}{
		{3, "third", 3, ""},
		{5, "third", 3, ""},  // recorded before a compaction removed two messages
		{1, "second", 1, ""}, // exact
		{4, "", 4, ""},       // unchecked
		{5, "", 5, ""},
		{2, "first", 0, "no longer in the conversation"},
		{3, "second", 1, ""}, // the nearest earlier one
		{6, "third", 0, "not in this conversation"},
		{-1, "", 0, "not in this conversation"},
	} {
		got, err := cutPoint(msgs, c.keep, c.prompt)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("cutPoint(%d, %q) = %d, %v; want error %q", c.keep, c.prompt, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("cutPoint(%d, %q) = %d, %v; want %d", c.keep, c.prompt, got, err, c.want)
		}
	}
}
