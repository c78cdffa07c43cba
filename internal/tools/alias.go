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

// Prepare sets the action, then prepares the call as the canonical tool:
// its decoding, policy and run, under the alias's name.
func (a *ActionAlias) Prepare(in json.RawMessage) (*Call, error) {
	return PrepareCall(a.tool, a.withAction(in))
}

// Execute runs the canonical tool.
func (a *ActionAlias) Execute(ctx context.Context, tc *Context, in json.RawMessage) (Result, error) {
	return Execute(ctx, a.tool, tc, a.withAction(in))
}
