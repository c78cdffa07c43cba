// Package github is the deferred `github` action family (docs/CONTRACT.md,
// github): read an issue's or pull request's context, comment, and close
// with evidence — all through the user's own `gh` CLI and its existing
// authentication. It speaks to GitHub's REST API through `gh api`, only to
// github.com and the hosts the person lists in [github] hosts, under the
// [network] policy (host.go).
package github

import (
	"context"
	"encoding/json"

	"github.com/codewhale/codewhale/internal/netpolicy"
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
	// Env is added to the person's environment gh's is built from (tests
	// point GH_HOST at a local server).
	Env []string
	// Hosts are the hosts besides github.com the tool may reach ([github]
	// hosts); a call naming any other is refused.
	Hosts []string
	// Network is the [network] policy gh's host must pass (nil: the zero
	// policy).
	Network *netpolicy.Policy
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
		SchemaFunc: func() map[string]any { return params.SchemaFor(actions) },
		Caps:       []tools.Capability{tools.CapNetwork},
		Deferred:   true,
		Approve:    tools.Required,
	}}
}

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3) and binds it
// to its host (bind): a host the person did not configure, or one the
// network policy denies, is refused here and gh never runs. The context
// actions and close dry runs are Auto, read-only and parallel-safe (Required
// when [network] prompts); what posts or closes is Required.
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := decode(raw, t.actions, t.InputSchema())
	if err != nil {
		return nil, err
	}
	p := tools.Policy{Approval: tools.Required}
	switch {
	case d.Action == "issue_context", d.Action == "pr_context", d.In.DryRun && (d.Action == "close_issue" || d.Action == "close_pr"):
		p = tools.Policy{Approval: tools.Auto, ReadOnly: true, Parallel: true}
	}
	if err := refuseOptions(&d.In); err != nil {
		return nil, err
	}
	r, err := parseRef(&d.In)
	if err != nil {
		// A malformed reference is refused when the call runs, in
		// parseRef's words; it names no host, so nothing is sent either way.
		return tools.NewCall(d.Input(), p, func(context.Context, *tools.Context) (tools.Result, error) {
			return tools.Result{}, err
		}), nil
	}
	p, env, err := t.bind(&r, p)
	if err != nil {
		return nil, err
	}
	return tools.NewCall(d.Input(), p, func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		res, err := t.run(ctx, tc, d, r, t.runner(tc.Workspace, env))
		return tools.Sized(res, err, tc, "read the rest with handle_read on the returned handle")
	}), nil
}

// Execute decodes and runs one call (tools.Execute).
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

func (t *Tool) run(ctx context.Context, tc *tools.Context, d *tools.Decoded[contract], ref ref, gh *gh) (tools.Result, error) {
	switch d.Action {
	case "issue_context":
		return t.issueContext(ctx, tc, gh, ref)
	case "pr_context":
		return t.prContext(ctx, tc, gh, ref)
	case "comment":
		return t.comment(ctx, gh, ref, d)
	default:
		return t.close(ctx, gh, ref, d.Action == "close_pr", d)
	}
}
