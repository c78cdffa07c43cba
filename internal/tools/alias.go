package tools

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
)

// ActionAlias is a hidden replay-only spelling of one action of an action
// family (`github_comment` for github's comment): it sets `action` on the
// input and otherwise is the canonical tool, so its behaviour, approval and
// errors are the canonical ones. It is never advertised.
type ActionAlias struct {
	Spec
	tool   Tool
	action string
}

// NewActionAlias returns the alias name of canonical's action. Its schema,
// built on first read, is the canonical one without `action`
// (CONTRACT.md §3.5): a legacy call never sent one, and one it sends is
// replaced.
func NewActionAlias(canonical Tool, name, action string) *ActionAlias {
	return &ActionAlias{tool: canonical, action: action, Spec: Spec{ToolName: name,
		Desc:       "Replay alias of " + canonical.Name() + " action " + action + ".",
		SchemaFunc: sync.OnceValue(func() map[string]any { return withoutAction(canonical.InputSchema()) }),
		Caps:       canonical.Capabilities(), Hidden: true, AliasOf: canonical.Name(), Approve: Required}}
}

// withoutAction is schema with no `action` property and none required; the
// canonical schema is shared and read-only, so the changed levels are copies.
func withoutAction(schema map[string]any) map[string]any {
	if schema == nil {
		return nil
	}
	out := maps.Clone(schema)
	if props, ok := schema["properties"].(map[string]any); ok {
		props = maps.Clone(props)
		delete(props, "action")
		out["properties"] = props
	}
	switch req := schema["required"].(type) {
	case []any:
		out["required"] = slices.DeleteFunc(slices.Clone(req), func(v any) bool { return v == "action" })
	case []string:
		out["required"] = slices.DeleteFunc(slices.Clone(req), func(v string) bool { return v == "action" })
	}
	if r, ok := out["required"]; ok && isEmptyList(r) {
		delete(out, "required")
	}
	return out
}

func isEmptyList(v any) bool {
	switch l := v.(type) {
	case []any:
		return len(l) == 0
	case []string:
		return len(l) == 0
	}
	return false
}

func (a *ActionAlias) withAction(in json.RawMessage) json.RawMessage {
	args, err := ParseArgs(in)
	if err != nil {
		return in
	}
	args["action"], _ = json.Marshal(a.action)
	return args.Marshal()
}

// Prepare sets the action, then prepares the call as the canonical tool:
// its decoding, policy and run, under the alias's name (a panic is
// recovered by the PrepareCall that called the alias, under its name).
func (a *ActionAlias) Prepare(in json.RawMessage) (*Call, error) {
	return prepareCall(a.tool, a.withAction(in))
}

// Execute runs the canonical tool.
func (a *ActionAlias) Execute(ctx context.Context, tc *Context, in json.RawMessage) (Result, error) {
	return Execute(ctx, a.tool, tc, a.withAction(in))
}
