package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codewhale/codewhale/internal/provider"
)

// LoadSession implements sdk.AgentLoader: one of our saved sessions is
// opened as the TUI resumes it (claimed, one writer), its history replayed
// to the client as session/update notifications, then answered.
func (a *Agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	defer a.track()()
	if p.SessionId == "" {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "sessionId is required"})
	}
	if _, err := a.session(p.SessionId); err == nil {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidRequest(map[string]any{"error": "session " + string(p.SessionId) +
			" is already open on this connection"})
	}
	servers, err := mcpServers(p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	s, err := a.open(ctx, OpenOptions{Cwd: p.Cwd, Load: string(p.SessionId), MCPServers: servers})
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if s.b.Resume != nil {
		s.replay(s.b.Resume.Session.Messages)
	}
	return sdk.LoadSessionResponse{Modes: modeState(s.mode())}, nil
}

// replay sends a saved history as the updates a live turn would have
// sent: the user's messages, the answers, the reasoning, each tool call
// with its outcome.
func (s *session) replay(msgs []provider.Message) {
	for _, m := range msgs {
		for _, b := range m.Content {
			s.replayBlock(m.Role, b)
		}
	}
}

func (s *session) replayBlock(role provider.Role, b provider.Block) {
	switch {
	case b.Type == provider.BlockText && role == provider.RoleUser:
		s.update(sdk.UpdateUserMessageText(b.Text))
	case b.Type == provider.BlockText && role != provider.RoleSystem:
		s.update(sdk.UpdateAgentMessageText(b.Text))
	case b.Type == provider.BlockThinking:
		s.update(sdk.UpdateAgentThoughtText(b.Thinking))
	case b.Type == provider.BlockToolUse:
		in := inputMap(b.Input)
		s.update(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{ToolCallId: sdk.ToolCallId(b.ID),
			Title: describe(b.Name, b.Input), Kind: toolKind(b.Name, in), Status: sdk.ToolCallStatusPending,
			Locations: s.locations(in), Content: diffContent(s.cwd, b.Name, in), RawInput: in}})
	case b.Type == provider.BlockToolResult:
		status := sdk.ToolCallStatusCompleted
		if b.IsError || b.Receipt != nil && !b.Receipt.Success {
			status = sdk.ToolCallStatusFailed
		}
		s.update(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: sdk.ToolCallId(b.ToolUseID),
			Status: &status, Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(b.Content))}}})
	}
}
