package provider

import (
	"strings"

	"github.com/codewhale/codewhale/internal/lazyre"
)

// Origin says who made a message when its role alone does not: the engine
// writes user-role messages too (runtime notices about finished background
// jobs and sub-agents, compaction summaries). It is kept in the session
// journal and never sent to the provider: the wire mapping (wire.go) sends
// blocks only.
type Origin string

// OriginEngine marks a message the engine made; OriginUser the input of a
// turn (what a person typed, or a caller sent in their place) and steers.
// The zero Origin is a tool result, a model reply, or any message of a
// session saved before the field existed.
const (
	OriginEngine Origin = "engine"
	OriginUser   Origin = "user"
)

// EngineText is a user-role message the engine made, holding one text block.
func EngineText(s string) Message {
	return Message{Role: RoleUser, Content: []Block{TextBlock(s)}, Origin: OriginEngine}
}

// reLegacyJobsNotice is the jobs notice as sessions saved before Origin
// existed hold it.
var reLegacyJobsNotice = lazyre.New(`^\d+ background shell jobs? finished\.`)

// EngineMade reports whether the engine made m. This is the one predicate
// for it: session titles, the resume view, compaction's recent turns and
// sub-agent transcripts all ask it. Messages saved before the Origin field
// existed (Origin "") are recognised by the texts the engine always began
// them with; that fallback never applies to a message that has an Origin.
func (m Message) EngineMade() bool {
	if m.Origin == OriginEngine {
		return true
	}
	if m.Origin != "" || m.Role != RoleUser || len(m.Content) == 0 || m.Content[0].Type != BlockText {
		return false
	}
	t := strings.TrimSpace(m.Content[0].Text)
	return strings.HasPrefix(t, "[runtime]") || strings.HasPrefix(t, "<codewhale:") || reLegacyJobsNotice().MatchString(t)
}

// Typed reports whether m is something a person typed (or a caller sent as
// the turn's input): a user message that is neither a tool result nor made
// by the engine.
func (m Message) Typed() bool {
	return m.Role == RoleUser && !m.HasBlock(BlockToolResult) && !m.EngineMade()
}

// PromptText is the text a person typed in m: its text blocks without the
// engine's <turn_meta> block, or "" when m is not Typed.
func (m Message) PromptText() string {
	if !m.Typed() {
		return ""
	}
	var parts []string
	for _, b := range m.Content {
		if b.Type != BlockText || strings.HasPrefix(strings.TrimSpace(b.Text), "<turn_meta>") {
			continue
		}
		parts = append(parts, b.Text)
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}
