package tui

import (
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tui/attach"
	"github.com/codewhale/codewhale/internal/tui/transcript"
)

// rebuild turns stored messages into transcript cells: typed prompts,
// replies, reasoning and tool calls with their results.
func rebuild(tr *transcript.Transcript, msgs []provider.Message) {
	tools := map[string]*transcript.Cell{}
	group := 0
	for _, msg := range msgs {
		switch msg.Role {
		case provider.RoleUser:
			for _, b := range msg.Content {
				if b.Type == provider.BlockToolResult {
					if c := tools[b.ToolUseID]; c != nil {
						c.Complete(storedOutcome(b), time.Time{})
					}
				}
			}
			if s := strings.Join(append([]string{typedText(msg)}, attach.Lines(msg)...), "\n"); strings.TrimSpace(s) != "" && msg.Typed() {
				tr.Add(transcript.NewCell(transcript.User, strings.TrimSpace(s)))
			}
		case provider.RoleAssistant, provider.RoleAssistantInterrupted:
			group++
			if th := strings.TrimSpace(msg.Thinking()); th != "" && th != provider.ReasoningOmitted {
				tr.Add(transcript.NewCell(transcript.Thinking, th))
			}
			if tx := strings.TrimSpace(msg.Text()); tx != "" {
				c := tr.Add(transcript.NewCell(transcript.Assistant, tx))
				c.Interrupted = msg.Role == provider.RoleAssistantInterrupted
			}
			for _, u := range msg.ToolUses() {
				tools[u.ID] = tr.Add(transcript.NewTool(u.ID, u.Name, u.Input, group, time.Time{}))
			}
		}
	}
	for _, c := range tools {
		if !c.Tool.Done {
			c.Complete(engine.ToolOutcome{Content: "No result recorded."}, time.Time{})
		}
	}
}

// storedOutcome is a tool result as the live cell saw it: the receipt the
// engine stored with it (status, category, the tool's metadata). Sessions
// written before receipts existed only know whether the call was refused.
func storedOutcome(b provider.Block) engine.ToolOutcome {
	o := engine.ToolOutcome{Content: b.Content, Success: !b.IsError, IsError: b.IsError}
	if r := b.Receipt; r != nil {
		o.Success, o.Category, o.Metadata = r.Success, r.Category, r.Meta
	}
	return o
}

// typedText is what a person typed in a user message: text blocks without
// the engine's turn metadata or runtime notices.
func typedText(msg provider.Message) string { return msg.PromptText() }
