// Package bash implements the canonical Bash tool (CONTRACT.md §6.1): run a
// command through the user's shell in the workspace, in the foreground with
// a deadline or in the background as a job, then wait for it, send it
// input, or cancel it. Processes are owned by a jobs.Manager, which the TUI's
// /jobs and `codewhale exec` share.
package bash

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/shellpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// ShellPolicy is what the active permission profile lets the shell do.
type ShellPolicy int

const (
	// ShellFull allows any command (subject to approval and safety).
	ShellFull ShellPolicy = iota
	// ShellReadOnly allows only commands the classifier marks read-only.
	ShellReadOnly
	// ShellNone refuses every command.
	ShellNone
)

// Options configures the tool.
type Options struct {
	// Jobs owns the processes; required.
	Jobs *jobs.Manager
	// Policy is the shell policy of the active permission profile.
	Policy ShellPolicy
	// Commands is the command classifier (internal/shellpolicy) with what
	// it knows of the machine: home, workspace, the credential guard. Nil
	// classifies with no knowledge of paths or secrets (hard blocks and
	// read-only detection still hold).
	Commands *shellpolicy.Env
}

// Tool is Bash. Register it only when the session and profile allow shell
// use, and never in Plan mode.
type Tool struct {
	tools.Spec
	opts Options

	mu   sync.Mutex
	last lastVerdict
}

type lastVerdict struct {
	command, dir string
	v            shellpolicy.Verdict
	ok           bool
}

// New returns the Bash tool.
func New(opts Options) *Tool {
	if opts.Jobs == nil {
		panic("bash.New: Options.Jobs is required")
	}
	if opts.Commands == nil {
		opts.Commands = &shellpolicy.Env{}
	}
	return &Tool{opts: opts, Spec: tools.Spec{
		ToolName: "Bash",
		Desc: "Run a shell command in the workspace and manage the jobs it starts. action=\"run\" (default) runs " +
			"`command` through the user's shell with a timeout (timeout_ms, default 120000, max 600000); set " +
			"background=true for work that may take longer than a few seconds (builds, test suites, servers) and " +
			"get a task id back at once. action=\"wait\" returns a job's new output, blocking until it exits or " +
			"timeout_ms passes (default 5000; 0 polls). action=\"interact\" writes stdin to a background job and " +
			"returns what it prints next. action=\"cancel\" stops one job (task_id) or all (all=true). Output over " +
			"30000 bytes per stream keeps its head and tail.",
		SchemaFunc: params.Schema,
		Caps:       []tools.Capability{tools.CapExecutesCode, tools.CapSandboxable, tools.CapRequiresApproval},
		Approve:    tools.Required,
	}}
}

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3) and decides its
// policy from the decoded call, classifying a run's command once:
// waits and cancels are Auto, and so are read-only foreground commands
// without stdin and hard-blocked commands (the run refuses them in every
// posture, so there is nothing to approve); commands the classifier says a
// person must approve are Explicit with its reason; the rest Required.
// Waits and read-only foreground runs are read-only; only the latter may
// run in parallel; background runs start detached.
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	in, canonical, err := parseInput(raw)
	if err != nil {
		return nil, err
	}
	return tools.NewCall(canonical, t.policyOf(in), func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		res, err := t.execute(ctx, tc, in)
		return tools.Sized(res, err, tc, "redirect the command's output to a file and read it with File action=\"read\", or filter it (grep, head, tail)")
	}), nil
}

func (t *Tool) policyOf(in input) tools.Policy {
	switch in.action {
	case "wait":
		return tools.Policy{Approval: tools.Auto, ReadOnly: true}
	case "cancel":
		return tools.Policy{Approval: tools.Auto}
	case "interact":
		return tools.Policy{Approval: tools.Required}
	}
	p := tools.Policy{Approval: tools.Required, Detached: in.background || in.tty}
	v := t.verdict(in.command, in.cwd)
	switch {
	case v.Class == shellpolicy.Blocked:
		p.Approval = tools.Auto
	case v.Class == shellpolicy.Explicit:
		p.Approval, p.Reason = tools.Explicit, v.Reason()
	case v.Class == shellpolicy.ReadOnly && inspectsOnly(in):
		p.Approval, p.ReadOnly, p.Parallel = tools.Auto, true, true
	}
	return p
}

// inspectsOnly is the rest of the auto-approval rule: a foreground run
// with no stdin and no terminal.
func inspectsOnly(in input) bool {
	return in.action == "run" && !in.background && !in.tty && !in.interactive && !in.combined && !in.hasStdin
}

// verdict classifies command in its working directory. Prepare asks for
// the policy and the run asks again before starting it; the last answer is
// kept.
func (t *Tool) verdict(command, cwd string) shellpolicy.Verdict {
	dir := t.opts.Commands.Workspace
	if cwd != "" {
		dir = filepath.Join(dir, cwd)
		if filepath.IsAbs(cwd) {
			dir = filepath.Clean(cwd)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last.ok && t.last.command == command && t.last.dir == dir {
		return t.last.v
	}
	v := t.opts.Commands.Classify(command, dir)
	t.last = lastVerdict{command: command, dir: dir, v: v, ok: true}
	return v
}

// Execute decodes and runs one Bash action (tools.Execute), its result
// sized to the call's budget (tools.Sized), saying how to get what was cut.
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

func (t *Tool) execute(ctx context.Context, tc *tools.Context, in input) (tools.Result, error) {
	switch in.action {
	case "wait":
		return t.wait(ctx, in)
	case "interact":
		return t.interact(ctx, in)
	case "cancel":
		return t.cancel(in)
	default:
		return t.run(ctx, tc, in)
	}
}
