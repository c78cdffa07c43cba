package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

// HandleRead is the deferred `handle_read` tool: it reads a slice of a
// sub-agent transcript by its handle, so large transcripts stay out of the
// parent's context until needed.
type HandleRead struct {
	tools.Spec
	m *Manager
}

const (
	defaultHandleLimit = 8000
	maxHandleLimit     = 50000
)

// NewHandleRead returns handle_read over m.
func NewHandleRead(m *Manager) *HandleRead {
	return &HandleRead{m: m, Spec: tools.Spec{
		ToolName: "handle_read",
		Desc:     "Read a slice of a var handle, such as a sub-agent transcript_handle returned by the agent tool.",
		Schema: map[string]any{"type": "object", "properties": map[string]any{
			"session_id": map[string]any{"type": "string", "description": "The handle's session_id, e.g. agent:agent_3f9a1c2e."},
			"handle":     map[string]any{"type": "object", "description": "The whole handle object, instead of session_id."},
			"name":       map[string]any{"type": "string", "description": "Handle name (default transcript)."},
			"offset":     map[string]any{"type": "integer", "minimum": 0, "description": "First character to return."},
			"limit":      map[string]any{"type": "integer", "minimum": 1, "maximum": maxHandleLimit, "default": defaultHandleLimit},
		}},
		Caps:     []tools.Capability{tools.CapReadOnly},
		Deferred: true, Approve: tools.Auto, ReadOnly: true, Parallel: true,
	}}
}

func (t *HandleRead) Execute(_ context.Context, _ *tools.Context, in json.RawMessage) (tools.Result, error) {
	args, err := tools.ParseArgs(in)
	if err != nil {
		return tools.Result{}, err
	}
	sid, _, err := args.String("session_id")
	if err != nil {
		return tools.Result{}, err
	}
	if raw, ok := args["handle"]; ok && sid == "" {
		var h Handle
		if json.Unmarshal(raw, &h) != nil || h.SessionID == "" {
			return tools.Result{}, tools.InvalidInput("handle must be the handle object returned by the agent tool (with session_id)")
		}
		sid = h.SessionID
	}
	if sid == "" {
		return tools.Result{}, args.Missing("session_id")
	}
	name, _, err := args.String("name")
	if err != nil {
		return tools.Result{}, err
	}
	if name != "" && name != "transcript" {
		return tools.Result{}, tools.InvalidInput("unknown handle name `%s`; sub-agent handles expose `transcript`", name)
	}
	id, ok := strings.CutPrefix(sid, "agent:")
	if !ok {
		return tools.Result{}, tools.InvalidInput("unknown handle session `%s`; expected agent:<agent_id>", sid)
	}
	offset, _, err := args.Uint("offset")
	if err != nil {
		return tools.Result{}, err
	}
	limit, ok, err := args.Uint("limit")
	if err != nil {
		return tools.Result{}, err
	}
	if !ok || limit == 0 {
		limit = defaultHandleLimit
	}
	limit = min(limit, maxHandleLimit)
	text, err := t.m.Transcript(id)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("%v", err)
	}
	r := []rune(text)
	if offset > len(r) {
		offset = len(r)
	}
	end := min(len(r), offset+limit)
	body := string(r[offset:end])
	note := fmt.Sprintf("[%s characters %d-%d of %d]", sid, offset, end, len(r))
	if end < len(r) {
		note += fmt.Sprintf(" — more remains; call handle_read with offset=%d", end)
	}
	return tools.OK(note + "\n" + body), nil
}
