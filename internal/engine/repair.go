package engine

import (
	"fmt"

	"github.com/codewhale/codewhale/internal/provider"
)

// CrashedToolResult is the synthetic result given to a call whose result was
// lost when the process died.
const CrashedToolResult = "Tool call interrupted by process exit; terminal status: crashed_and_repaired."

// RepairReport says what RepairHistory changed.
type RepairReport struct {
	Repaired   int // calls that got a synthetic result
	Duplicates int // extra results for an answered call, dropped
	Orphans    int // results answering no call of the preceding assistant message, dropped
}

// Changed reports whether the history was modified.
func (r RepairReport) Changed() bool { return r.Repaired+r.Duplicates+r.Orphans > 0 }

// Line is the one system line shown after a repair.
func (r RepairReport) Line() string {
	return fmt.Sprintf("[tool_history_repair] Repaired %d crashed tool call(s); quarantined %d duplicate and %d orphan terminal result(s).",
		r.Repaired, r.Duplicates, r.Orphans)
}

// RepairHistory makes a loaded history well-formed before the next request
// (CONTRACT.md §9.11): every tool call gets exactly one result, in call order,
// right after its assistant message; duplicate and orphan results are
// dropped.
func RepairHistory(msgs []provider.Message) ([]provider.Message, RepairReport) {
	var rep RepairReport
	out := make([]provider.Message, 0, len(msgs))
	for i := 0; i < len(msgs); {
		m := msgs[i]
		i++
		calls := m.ToolUses()
		if (m.Role != provider.RoleAssistant && m.Role != provider.RoleAssistantInterrupted) || len(calls) == 0 {
			if kept, dropped := withoutResults(m); dropped > 0 {
				rep.Orphans += dropped
				if len(kept.Content) > 0 {
					out = append(out, kept)
				}
				continue
			}
			out = append(out, m)
			continue
		}
		out = append(out, m)
		results := map[string]provider.Block{}
		var trailing []provider.Message // text the user sent among the results
		for i < len(msgs) && msgs[i].Role == provider.RoleUser && msgs[i].HasBlock(provider.BlockToolResult) {
			for _, b := range msgs[i].Content {
				switch {
				case b.Type != provider.BlockToolResult:
					trailing = append(trailing, provider.Message{Role: provider.RoleUser, Content: []provider.Block{b}})
				case !hasCall(calls, b.ToolUseID):
					rep.Orphans++
				case results[b.ToolUseID].Type != "":
					rep.Duplicates++
				default:
					results[b.ToolUseID] = b
				}
			}
			i++
		}
		for _, c := range calls {
			b, ok := results[c.ID]
			if !ok {
				b = provider.ToolResultBlock(c.ID, CrashedToolResult, true)
				rep.Repaired++
			}
			out = append(out, provider.Message{Role: provider.RoleUser, Content: []provider.Block{b}})
		}
		out = append(out, trailing...)
	}
	return out, rep
}

func hasCall(calls []provider.Block, id string) bool {
	for _, c := range calls {
		if c.ID == id {
			return true
		}
	}
	return false
}

// withoutResults drops tool-result blocks from a message that does not
// follow a tool-calling assistant message.
func withoutResults(m provider.Message) (provider.Message, int) {
	if !m.HasBlock(provider.BlockToolResult) {
		return m, 0
	}
	kept := provider.Message{Role: m.Role}
	n := 0
	for _, b := range m.Content {
		if b.Type == provider.BlockToolResult {
			n++
			continue
		}
		kept.Content = append(kept.Content, b)
	}
	return kept, n
}
