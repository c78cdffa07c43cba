// Package github is the deferred `github` action family (docs/CONTRACT.md,
// github): read an issue's or pull request's context, comment, and close
// with evidence — all through the user's own `gh` CLI, so their existing
// authentication, GH_HOST and enterprise hosts just work. It speaks to
// GitHub's REST API through `gh api`.
package github

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/handles"
)

// ToolName is the family's canonical name.
const ToolName = "github"

// Actions in contract order; readActions are all Plan offers.
var (
	Actions     = []string{"issue_context", "pr_context", "comment", "close_issue", "close_pr"}
	readActions = []string{"issue_context", "pr_context"}
)

// Options configure the tool.
type Options struct {
	// ReadOnly offers only the read actions (Plan mode).
	ReadOnly bool
	// GH is the gh binary; "" looks it up on PATH when a call needs it.
	GH string
	// Env is added to gh's environment (tests point GH_HOST at a local
	// server); nil inherits the agent's.
	Env []string
	// Handles keeps long threads and diffs out of the transcript.
	Handles *handles.Store
}

// Tool is github.
type Tool struct {
	tools.Spec
	opts    Options
	actions []string
}

// New returns the github tool.
func New(opts Options) *Tool {
	actions := Actions
	if opts.ReadOnly {
		actions = readActions
	}
	return &Tool{opts: opts, actions: actions, Spec: tools.Spec{
		ToolName: ToolName,
		Desc: "GitHub issues and pull requests through the user's gh CLI. issue_context / pr_context {number " +
			"(with optional repo owner/name) | url}: title, state, author, labels, body, comments; for a pull request " +
			"also the changed files, checks and the diff (long ones as handles for handle_read). comment {number, " +
			"body} posts a comment. close_issue / close_pr {number, files_changed, tests_run, final_status, " +
			"acceptance_criteria, dry_run} closes with a structured evidence comment; dry_run shows what would be done.",
		SchemaFunc: schemaFor(actions),
		Caps:       []tools.Capability{tools.CapNetwork},
		Deferred:   true,
		Approve:    tools.Required,
	}}
}

var (
	fullSchema = sync.OnceValue(func() map[string]any { return buildSchema(Actions) })
	readSchema = sync.OnceValue(func() map[string]any { return buildSchema(readActions) })
)

func schemaFor(actions []string) func() map[string]any {
	if len(actions) == len(readActions) {
		return readSchema
	}
	return fullSchema
}

func buildSchema(actions []string) map[string]any {
	str := func(d string) map[string]any { return map[string]any{"type": "string", "description": d} }
	strs := func(d string) map[string]any {
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": d}
	}
	enum := make([]any, len(actions))
	for i, a := range actions {
		enum[i] = a
	}
	props := map[string]any{
		"action": map[string]any{"type": "string", "enum": enum, "description": "Operation."},
		"number": map[string]any{"type": "integer", "minimum": 1, "description": "Issue or pull request number."},
		"repo":   str("owner/name (or host/owner/name); default: the workspace's GitHub remote."),
		"url":    str("An issue or pull request URL, instead of number and repo."),
	}
	if len(actions) > len(readActions) {
		props["body"] = str("comment: the Markdown to post.")
		props["files_changed"] = strs("close: the files the fix changed.")
		props["tests_run"] = strs("close: the tests or checks run, with their outcome.")
		props["final_status"] = str("close: one line on the final state (e.g. fixed in abc123, tests pass).")
		props["acceptance_criteria"] = map[string]any{"type": "array", "description": "close: each criterion and whether it is met.",
			"items": map[string]any{"type": "object", "required": []any{"criterion", "met"}, "properties": map[string]any{
				"criterion": str("The criterion."), "met": map[string]any{"type": "boolean"}, "evidence": str("How it was checked.")}}}
		props["reason"] = map[string]any{"type": "string", "enum": []any{"completed", "wont_do"},
			"description": "close_issue: completed (default) or wont_do (GitHub's state_reason for work that will not be done)."}
		props["dry_run"] = map[string]any{"type": "boolean", "description": "close: report what would be posted and done, change nothing."}
	}
	return map[string]any{"type": "object", "required": []any{"action"}, "additionalProperties": false, "properties": props}
}

// NormalizeInput gives the family's short error forms for the action.
func (t *Tool) NormalizeInput(raw json.RawMessage) (json.RawMessage, error) {
	args, err := tools.ParseArgs(raw)
	if err != nil {
		return nil, err
	}
	if _, err := args.FamilyAction(ToolName, t.actions); err != nil {
		return nil, err
	}
	return raw, nil
}

// ApprovalFor is Auto for reads and dry runs, Required for what posts or
// closes.
func (t *Tool) ApprovalFor(raw json.RawMessage) tools.Approval {
	if t.ReadOnlyFor(raw) {
		return tools.Auto
	}
	return tools.Required
}

// ReadOnlyFor is true for the context actions and close dry runs.
func (t *Tool) ReadOnlyFor(raw json.RawMessage) bool {
	var p struct {
		Action string `json:"action"`
		DryRun bool   `json:"dry_run"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return false
	}
	switch p.Action {
	case "issue_context", "pr_context":
		return true
	case "close_issue", "close_pr":
		return p.DryRun
	}
	return false
}

// ParallelSafeFor is true for reads.
func (t *Tool) ParallelSafeFor(raw json.RawMessage) bool { return t.ReadOnlyFor(raw) }

// Execute runs one action and sizes its result to the call's budget
// (tools.Sized), saying how to get what was cut.
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	res, err := t.execute(ctx, tc, in)
	return tools.Sized(res, err, tc, "read the rest with handle_read on the returned handle")
}

func (t *Tool) execute(ctx context.Context, tc *tools.Context, raw json.RawMessage) (tools.Result, error) {
	args, err := tools.ParseArgs(raw)
	if err != nil {
		return tools.Result{}, err
	}
	action, err := args.FamilyAction(ToolName, t.actions)
	if err != nil {
		return tools.Result{}, err
	}
	ref, err := parseRef(args)
	if err != nil {
		return tools.Result{}, err
	}
	gh := t.runner(tc.Workspace)
	switch action {
	case "issue_context":
		return t.issueContext(ctx, tc, gh, ref)
	case "pr_context":
		return t.prContext(ctx, tc, gh, ref)
	case "comment":
		return t.comment(ctx, gh, ref, args)
	default:
		return t.close(ctx, gh, ref, action == "close_pr", args)
	}
}
