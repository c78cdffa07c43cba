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
		Schema:  schema(),
		Caps:    []tools.Capability{tools.CapExecutesCode, tools.CapSandboxable, tools.CapRequiresApproval},
		Approve: tools.Required,
	}}
}

func schema() map[string]any {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	boolean := func(desc string) map[string]any { return map[string]any{"type": "boolean", "description": desc} }
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"action":          map[string]any{"type": "string", "enum": actions, "description": "Operation; default run."},
			"command":         str("Shell command to run (run)."),
			"timeout_ms":      map[string]any{"type": "integer", "minimum": 0, "description": "run: deadline, default 120000, 1000..600000. wait: how long to block, default 5000, 0 polls. interact: how long to wait for output, default 1000."},
			"background":      boolean("run: start as a background job and return its task id at once."),
			"interactive":     boolean("run: attach the command to a terminal (not supported in this build)."),
			"tty":             boolean("run: allocate a pseudo-terminal (not supported in this build)."),
			"combined_output": boolean("run: capture stdout and stderr as one merged stream."),
			"stdin":           str("run: data written to the command's stdin; interact: input to send. Aliases: input, data."),
			"cwd":             str("run: working directory inside the workspace (alias working_dir)."),
			"task_id":         str("wait, interact, cancel: the job id, shell_<8 hex> (alias id)."),
			"wait":            boolean("wait: false polls without blocking (alias block)."),
			"close_stdin":     boolean("interact: close the job's stdin after writing."),
			"all":             boolean("cancel: stop every running job."),
		},
		"anyOf": []any{
			map[string]any{"required": []any{"command"}},
			map[string]any{"required": []any{"task_id"}},
			map[string]any{"required": []any{"id"}},
			map[string]any{"required": []any{"all"}},
		},
	}
}

// NormalizeInput folds aliases and gives the contract's messages for a
// missing or unknown action and missing fields before schema validation.
func (t *Tool) NormalizeInput(raw json.RawMessage) (json.RawMessage, error) {
	_, args, err := parseInput(raw)
	if err != nil {
		return nil, err
	}
	return args.Marshal(), nil
}

// ApprovalFor is Auto for waits, cancels and read-only foreground commands
// without stdin, and for hard-blocked commands (Execute refuses them in
// every posture, so there is nothing to approve); Explicit for commands the
// classifier says a person must approve; Required for everything else.
func (t *Tool) ApprovalFor(raw json.RawMessage) tools.Approval {
	switch tools.PeekAction(raw, "run") {
	case "wait", "cancel":
		return tools.Auto
	case "run":
		in, v, ok := t.classify(raw)
		switch {
		case !ok:
		case v.Class == shellpolicy.Blocked:
			return tools.Auto
		case v.Class == shellpolicy.Explicit:
			return tools.Explicit
		case v.Class == shellpolicy.ReadOnly && inspectsOnly(in):
			return tools.Auto
		}
	}
	return tools.Required
}

// ApprovalReason is why a command needs explicit approval.
func (t *Tool) ApprovalReason(raw json.RawMessage) string {
	if _, v, ok := t.classify(raw); ok {
		return v.Reason()
	}
	return ""
}

// ReadOnlyFor is true for waits and read-only foreground commands.
func (t *Tool) ReadOnlyFor(raw json.RawMessage) bool {
	switch tools.PeekAction(raw, "run") {
	case "wait":
		return true
	case "run":
		in, v, ok := t.classify(raw)
		return ok && v.Class == shellpolicy.ReadOnly && inspectsOnly(in)
	}
	return false
}

// ParallelSafeFor is true only for read-only foreground commands.
func (t *Tool) ParallelSafeFor(raw json.RawMessage) bool {
	return tools.PeekAction(raw, "run") == "run" && t.ReadOnlyFor(raw)
}

// StartsDetachedFor is true for background runs.
func (t *Tool) StartsDetachedFor(raw json.RawMessage) bool {
	in, _, err := parseInput(raw)
	return err == nil && in.action == "run" && (in.background || in.tty)
}

// inspectsOnly is the rest of the auto-approval rule: a foreground run
// with no stdin and no terminal.
func inspectsOnly(in input) bool {
	return in.action == "run" && !in.background && !in.tty && !in.interactive && !in.combined && !in.hasStdin
}

// classify parses a run input and classifies its command in its working
// directory. The predicates ask several times per call; the last answer
// is kept.
func (t *Tool) classify(raw json.RawMessage) (input, shellpolicy.Verdict, bool) {
	in, _, err := parseInput(raw)
	if err != nil || in.action != "run" {
		return in, shellpolicy.Verdict{}, false
	}
	return in, t.verdict(in.command, in.cwd), true
}

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

// Execute runs one Bash action and sizes its result to the call's budget
// (tools.Sized), saying how to get what was cut.
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	res, err := t.execute(ctx, tc, in)
	return tools.Sized(res, err, tc, "redirect the command's output to a file and read it with File action=\"read\", or filter it (grep, head, tail)")
}

func (t *Tool) execute(ctx context.Context, tc *tools.Context, raw json.RawMessage) (tools.Result, error) {
	in, _, err := parseInput(raw)
	if err != nil {
		return tools.Result{}, err
	}
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
