package acp

import (
	"encoding/json"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codewhale/codewhale/internal/engine"
)

// toolCall is what the session remembers of an announced call.
type toolCall struct {
	name  string
	input json.RawMessage
}

// toolEvent reports a call's start, live output and end as tool_call and
// tool_call_update notifications.
func (s *session) toolEvent(ev engine.Event) {
	switch ev := ev.(type) {
	case engine.ToolCallStarted:
		s.mu.Lock()
		s.tools[ev.ID] = &toolCall{name: ev.Name, input: ev.Input}
		s.mu.Unlock()
		in := inputMap(ev.Input)
		s.update(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
			ToolCallId: sdk.ToolCallId(ev.ID),
			Title:      describe(ev.Name, ev.Input),
			Kind:       toolKind(ev.Name, in),
			Status:     sdk.ToolCallStatusPending,
			Locations:  s.locations(in),
			Content:    diffContent(s.cwd, ev.Name, in),
			RawInput:   in,
		}})
	case engine.ToolCallProgress:
		status := sdk.ToolCallStatusInProgress
		s.update(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
			ToolCallId: sdk.ToolCallId(ev.ID), Status: &status,
			Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(ev.Output))},
		}})
	case engine.ToolCallComplete:
		status := sdk.ToolCallStatusCompleted
		if !ev.Result.Success {
			status = sdk.ToolCallStatusFailed
		}
		s.update(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
			ToolCallId: sdk.ToolCallId(ev.ID), Status: &status,
			Content:   []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(ev.Result.Content))},
			RawOutput: map[string]any{"content": ev.Result.Content, "success": ev.Result.Success, "category": ev.Result.Category},
		}})
	}
}

// inputMap is a call's arguments as an object (empty when they are not
// one).
func inputMap(raw json.RawMessage) map[string]any {
	m := map[string]any{}
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return map[string]any{}
	}
	return m
}

func str(in map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := in[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// toolKind is the protocol's kind of a call, from its tool and action, so
// a client can show the right icon and group reads apart from edits.
func toolKind(name string, in map[string]any) sdk.ToolKind {
	act := str(in, "action")
	switch name {
	case "Bash", "Run":
		return sdk.ToolKindExecute
	case "File", "apply_patch":
		switch act {
		case "read", "list":
			return sdk.ToolKindRead
		case "search_name", "search_content":
			return sdk.ToolKindSearch
		}
		return sdk.ToolKindEdit
	case "Git", "handle_read", "read_media", "lsp":
		return sdk.ToolKindRead
	case "Web":
		if act == "search" {
			return sdk.ToolKindSearch
		}
		return sdk.ToolKindFetch
	case "tool_search":
		return sdk.ToolKindSearch
	case "update_plan", "work_update", "todo_write", "checklist_write":
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

// locations are the files a call names, absolute, so a client can follow
// the agent through the workspace.
func (s *session) locations(in map[string]any) []sdk.ToolCallLocation {
	p := str(in, "path", "file_path")
	if p == "" {
		return nil
	}
	loc := sdk.ToolCallLocation{Path: absIn(s.cwd, p)}
	if n, ok := in["line"].(float64); ok && n >= 1 {
		line := int(n)
		loc.Line = &line
	}
	return []sdk.ToolCallLocation{loc}
}

func absIn(cwd, p string) string {
	if filepath.IsAbs(p) || cwd == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// diffContent is a File write's or edit's change as the protocol's diff
// content: a write's whole new text, an edit's replaced and new text.
func diffContent(cwd, name string, in map[string]any) []sdk.ToolCallContent {
	if name != "File" {
		return nil
	}
	p := str(in, "path", "file_path")
	if p == "" {
		return nil
	}
	p = absIn(cwd, p)
	switch str(in, "action") {
	case "write":
		content, _ := in["content"].(string)
		return []sdk.ToolCallContent{sdk.ToolDiffContent(p, content)}
	case "edit":
		old := str(in, "search", "old_string", "old_str", "oldText", "old_text")
		repl, ok := in["replace"].(string)
		if !ok {
			repl = str(in, "new_string", "new_str", "newText", "new_text", "replacement")
		}
		if old == "" && strings.TrimSpace(repl) == "" {
			return nil
		}
		return []sdk.ToolCallContent{sdk.ToolDiffContent(p, repl, old)}
	}
	return nil
}

// describe is a call's title, as the approval card heads it.
func describe(name string, in json.RawMessage) string { return engine.Describe(name, in) }
