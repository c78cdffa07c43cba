package tools

import (
	"context"
	"encoding/json"
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

// NewActionAlias returns the alias name of canonical's action.
func NewActionAlias(canonical Tool, name, action string) *ActionAlias {
	return &ActionAlias{tool: canonical, action: action, Spec: Spec{ToolName: name,
		Desc: "Replay alias of " + canonical.Name() + " action " + action + ".", SchemaFunc: canonical.InputSchema,
		Caps: canonical.Capabilities(), Hidden: true, Approve: Required}}
}

func (a *ActionAlias) withAction(in json.RawMessage) json.RawMessage {
	args, err := ParseArgs(in)
	if err != nil {
		return in
	}
	args["action"], _ = json.Marshal(a.action)
	return args.Marshal()
}

// NormalizeInput sets the action, then normalises as the canonical tool.
func (a *ActionAlias) NormalizeInput(in json.RawMessage) (json.RawMessage, error) {
	in = a.withAction(in)
	if n, ok := a.tool.(InputNormalizer); ok {
		return n.NormalizeInput(in)
	}
	return in, nil
}

func (a *ActionAlias) ApprovalFor(in json.RawMessage) Approval {
	return a.tool.ApprovalFor(a.withAction(in))
}
func (a *ActionAlias) ReadOnlyFor(in json.RawMessage) bool {
	return a.tool.ReadOnlyFor(a.withAction(in))
}
func (a *ActionAlias) ParallelSafeFor(in json.RawMessage) bool {
	return a.tool.ParallelSafeFor(a.withAction(in))
}
func (a *ActionAlias) StartsDetachedFor(in json.RawMessage) bool {
	return a.tool.StartsDetachedFor(a.withAction(in))
}

// ApprovalReason is the canonical tool's reason, if it gives one.
func (a *ActionAlias) ApprovalReason(in json.RawMessage) string {
	return ApprovalReason(a.tool, a.withAction(in))
}

// Execute runs the canonical tool.
func (a *ActionAlias) Execute(ctx context.Context, tc *Context, in json.RawMessage) (Result, error) {
	return a.tool.Execute(ctx, tc, a.withAction(in))
}
