package engine

import (
	"testing"

	"github.com/codewhale/codewhale/internal/provider"
)

// CONTRACT.md §9.11: a tool_use with no result is repaired with the exact crashed_and_repaired text, duplicates and
// orphans quarantined.
func TestRepairHistory(t *testing.T) {
	t.Parallel()
	call := func(ids ...string) provider.Message {
		m := provider.Message{Role: provider.RoleAssistant}
		for _, id := range ids {
			m.Content = append(m.Content, provider.ToolUseBlock(id, "File", nil))
		}
		return m
	}
	result := func(id string) provider.Message {
		return provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.ToolResultBlock(id, "ok "+id, false)}}
	}
	hist := []provider.Message{
		provider.UserText("go"),
		call("a", "b", "c"),
		result("b"), result("b"), result("zz"),
		provider.UserText("next"),
		result("orphan"),
		call("d"), // crashed before any result
	}
	got, rep := RepairHistory(hist)
	if rep != (RepairReport{Repaired: 3, Duplicates: 1, Orphans: 2}) {
		t.Errorf("report %+v", rep)
	}
	want := []string{"user:go", "assistant:", "result:a:crashed", "result:b:ok", "result:c:crashed", "user:next", "assistant:", "result:d:crashed"}
	if len(got) != len(want) {
		t.Fatalf("got %d messages", len(got))
	}
	for i, m := range got {
		var s string
		switch {
		case m.HasBlock(provider.BlockToolResult):
			b := m.Content[0]
			state := "ok"
			if b.Content == CrashedToolResult && b.IsError {
				state = "crashed"
			}
			s = "result:" + b.ToolUseID + ":" + state
		default:
			s = string(m.Role) + ":" + m.Text()
		}
		if s != want[i] {
			t.Errorf("%d: %s, want %s", i, s, want[i])
		}
	}
	if rep.Line() != "[tool_history_repair] Repaired 3 crashed tool call(s); quarantined 1 duplicate and 2 orphan terminal result(s)." {
		t.Error(rep.Line())
	}
	clean, rep := RepairHistory(got)
	if rep.Changed() || len(clean) != len(got) {
		t.Errorf("a repaired history must be stable: %+v", rep)
	}
}
