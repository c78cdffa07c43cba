package github

import (
	"context"
	"encoding/json"

	"github.com/codewhale/codewhale/internal/tools"
)

// aliasActions maps the replay-only spellings to their actions.
var aliasActions = []struct{ name, action string }{
	{"github_issue_context", "issue_context"},
	{"github_pr_context", "pr_context"},
	{"github_comment", "comment"},
	{"github_close_issue", "close_issue"},
	{"github_close_pr", "close_pr"},
}

// Alias is a hidden replay-only spelling that runs one github action with
// the canonical tool's behaviour.
type Alias struct {
	tools.Spec
	t      *Tool
	action string
}

// Aliases returns the replay aliases of t's actions (read ones only when t
// is read-only).
func Aliases(t *Tool) []tools.Tool {
	var out []tools.Tool
	for _, a := range aliasActions {
		if !contains(t.actions, a.action) {
			continue
		}
		out = append(out, &Alias{t: t, action: a.action, Spec: tools.Spec{
			ToolName: a.name, Desc: "Replay alias of github action " + a.action + ".",
			SchemaFunc: t.Spec.SchemaFunc, Caps: t.Caps, Hidden: true, Approve: tools.Required}})
	}
	return out
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// withAction sets the alias's action on the input.
func (a *Alias) withAction(in json.RawMessage) json.RawMessage {
	args, err := tools.ParseArgs(in)
	if err != nil {
		return in
	}
	args["action"], _ = json.Marshal(a.action)
	return args.Marshal()
}

func (a *Alias) NormalizeInput(in json.RawMessage) (json.RawMessage, error) {
	return a.t.NormalizeInput(a.withAction(in))
}
func (a *Alias) ApprovalFor(in json.RawMessage) tools.Approval {
	return a.t.ApprovalFor(a.withAction(in))
}
func (a *Alias) ReadOnlyFor(in json.RawMessage) bool { return a.t.ReadOnlyFor(a.withAction(in)) }
func (a *Alias) ParallelSafeFor(in json.RawMessage) bool {
	return a.t.ParallelSafeFor(a.withAction(in))
}
func (a *Alias) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return a.t.Execute(ctx, tc, a.withAction(in))
}
