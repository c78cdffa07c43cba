// Package run implements the canonical Run tool (CONTRACT.md §6.4,
// §15.15): `tests` detects the workspace's test runner and reports counts and
// failing tests; `verifiers` runs independent verification gates. Every
// process goes through the shared jobs.Manager, under the same process-group,
// timeout and output rules as Bash, and is visible in /jobs while it runs.
package run

import (
	"context"
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/shellpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// DefaultTestTimeout bounds one test run.
const DefaultTestTimeout = 10 * time.Minute

// Options configures the tool.
type Options struct {
	// Jobs owns the processes; required.
	Jobs *jobs.Manager
	// TestCommand, when set, is the project's test command (run with the
	// user's shell; `args` are appended quoted). It wins over detection.
	TestCommand string
	// TestTimeout bounds a test run; default DefaultTestTimeout.
	TestTimeout time.Duration
	// Python is the interpreter for pytest and the python-syntax gate;
	// default python3.
	Python string
	// Commands is the command classifier (internal/shellpolicy) Bash's
	// commands are judged by; a custom verifier gate is judged as the
	// command `program args…` (nil knows no home or workspace: hard blocks
	// and the credential guard still hold).
	Commands *shellpolicy.Env
	// NoShell is set when the session may not run shell commands
	// (allow_shell off outside Full Access): a custom gate runs a program
	// of the model's choosing, so a call with `commands` is refused; the
	// detected runners and gates still run.
	NoShell bool
}

// Tool is Run. It is default-active outside Plan mode.
type Tool struct {
	tools.Spec
	opts Options
}

// New returns the Run tool.
func New(opts Options) *Tool {
	if opts.Jobs == nil {
		panic("run.New: Options.Jobs is required")
	}
	if opts.TestTimeout <= 0 {
		opts.TestTimeout = DefaultTestTimeout
	}
	return &Tool{opts: opts, Spec: tools.Spec{
		ToolName: "Run",
		Desc: "Run the project's tests or its verifier gates and get structured results. action=\"tests\" detects " +
			"the test runner (go test, cargo test, the package.json test script via npm/pnpm/yarn, pytest, make " +
			"test, or the configured command) and returns success, exit code, passed/failed/skipped counts, the " +
			"failing tests with output excerpts, and the capped output; `args` are passed to the runner. " +
			"Counts are of test cases, the same way for every runner: a test with subtests counts as its subtests " +
			"(Go, node:test), pytest errors (setup, teardown, collection) count as failed and are listed as " +
			"`<id> [error]`, xfail and node todo as skipped, xpass as passed, and a package or suite that fails " +
			"outside any test (a build error) is one failure; `failed` always equals the failures listed plus " +
			"failures_omitted plus failures_unlisted (counted by the runner but not named in its output). " +
			"action=\"verifiers\" runs the detected quality gates (git whitespace, rust fmt/check/clippy/test, " +
			"package.json check/lint/typecheck scripts, Python syntax/pytest, go test/vet) and custom `commands` " +
			"in parallel and returns a verdict; background=true starts each gate as a Bash background job.",
		SchemaFunc: params.Schema,
		Caps:       []tools.Capability{tools.CapExecutesCode, tools.CapSandboxable},
		Approve:    tools.Required,
	}}
}

func (t *Tool) python() string {
	if t.opts.Python != "" {
		return t.opts.Python
	}
	return "python3"
}

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3): the
// contract's messages for a missing or unknown action, unknown fields, bad
// profile, level, limits, custom gates and unparsable args. Every Run call
// needs approval; verifiers started in the background are detached. Custom
// gates and the test command (the runner with its `args`) are judged as Bash judges their
// commands (gatesVerdict, testsVerdict): one a person must approve makes the
// call Explicit with the reason, and a hard block refuses the call, in
// every posture, before anything runs.
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	in, err := parseInput(raw)
	if err != nil {
		return nil, err
	}
	if t.opts.NoShell && len(in.commands) > 0 {
		return nil, tools.PermissionDenied("custom verifier `commands` run programs of the caller's choosing and need " +
			"shell access (allow_shell or Full Access); call Run without `commands` to run the detected gates")
	}
	p := t.StaticPolicy()
	p.Detached = in.action == "verifiers" && in.background
	v := t.gatesVerdict(in.commands)
	judged := ""
	if in.action == "tests" {
		if ws := t.commands().Workspace; ws != "" {
			r, ok := t.detectTests(ws, in.args, in.allFeatures)
			var tv shellpolicy.Verdict
			tv, judged = t.testsVerdict(r, ok, ws, in.args)
			v = worse(v, tv)
		}
	}
	switch v.Class {
	case shellpolicy.Blocked:
		p.Approval, p.Detached = tools.Auto, false // refused at run: nothing to approve
	case shellpolicy.Explicit:
		p.Approval, p.Reason = tools.Explicit, v.Reason()
	}
	return tools.NewCall(raw, p, func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		if v.Class == shellpolicy.Blocked {
			return blocked(v.Reasons), nil
		}
		res, err := t.execute(ctx, tc, in, judged)
		return tools.Sized(res, err, tc, "narrow the run with `args` (a test filter such as -run/-k, or one package) to see more of its output and excerpts")
	}), nil
}

// blocked is the refusal of a hard-blocked call, Bash's.
func blocked(reasons []string) tools.Result {
	res := tools.Failed(shellpolicy.BlockedContent(reasons))
	res.Metadata = map[string]any{"status": "Blocked", "blocked_reasons": reasons}
	return res
}

// changedCommand refuses a test command that differs from the one the call
// was approved for and needs more than that approval.
func changedCommand(cmd string, v shellpolicy.Verdict) tools.Result {
	if v.Class == shellpolicy.Blocked {
		return blocked(v.Reasons)
	}
	res := tools.Failed("Nothing was run: the test command is now " + cmd + ", not the one this call was approved " +
		"for, and it needs a person's explicit approval (" + v.Reason() + "). Call Run again to have it judged.")
	res.Metadata = map[string]any{"status": "Held"}
	return res
}

// Execute decodes and runs one Run action (tools.Execute).
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

// execute runs one Run action; judged is the test command Prepare judged.
func (t *Tool) execute(ctx context.Context, tc *tools.Context, in input, judged string) (tools.Result, error) {
	if in.action == "verifiers" {
		return t.verifiers(ctx, tc, in)
	}
	// The workspace the call runs in, or its runner, may not be the one
	// judged (a file written since): the runner that runs is judged.
	r, ok := t.detectTests(tc.Workspace, in.args, in.allFeatures)
	if now, cmd := t.testsVerdict(r, ok, tc.Workspace, in.args); cmd != judged && now.Class >= shellpolicy.Explicit {
		return changedCommand(cmd, now), nil
	}
	return t.tests(ctx, tc, in, r, ok)
}

// jsonResult renders v as the content.
func jsonResult(v any, success bool, meta map[string]any) tools.Result {
	raw, err := json.Marshal(v)
	if err != nil {
		return tools.Failed("Run could not encode its result: " + err.Error())
	}
	return tools.Result{Content: string(raw), Success: success, Metadata: meta}
}

// commands is the classifier's environment (nil knows no home or
// workspace: hard blocks and the credential guard still hold).
func (t *Tool) commands() *shellpolicy.Env {
	if t.opts.Commands == nil {
		return &shellpolicy.Env{}
	}
	return t.opts.Commands
}

// gatesVerdict judges the custom gates as Bash judges a command (CONTRACT.md
// §6.1): each is the command `program args…` (ClassifyArgv) in its cwd; the
// most severe verdict wins and its reasons are those of every gate of that
// class. The detected gates are the project's own and are not judged.
func (t *Tool) gatesVerdict(gates []customGate) shellpolicy.Verdict {
	env := t.commands()
	worst := shellpolicy.Verdict{Class: shellpolicy.Ordinary}
	for _, g := range gates {
		dir := ""
		if g.Cwd != "" {
			dir = g.Cwd
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(env.Workspace, dir)
			}
		}
		worst = worse(worst, env.ClassifyArgv(append([]string{g.Program}, g.Args...), dir))
	}
	return worst
}

// testsVerdict judges the test command r (detected in ws; ok false: none)
// as Bash judges a command: the runner's argv (ClassifyArgv), or the
// configured test_command line with the args quoted (Classify), so
// `go test -exec 'rm -rf /'` is as blocked here as there, and so is a
// package.json test script of `rm -rf ~` that `npm test` would run (the
// project's files are the model's to write). The person's own
// test_command without args is theirs and is not judged. cmd is the
// command judged ("" when none).
func (t *Tool) testsVerdict(r runner, ok bool, ws string, args []string) (v shellpolicy.Verdict, cmd string) {
	v = shellpolicy.Verdict{Class: shellpolicy.Ordinary}
	if !ok || r.shell != "" && len(args) == 0 {
		return v, "" // nothing runs, or the configured command as configured
	}
	cmd = r.ecosystem + ": " + r.display()
	if r.shell != "" {
		return t.commands().Classify(r.shell, ws), cmd
	}
	return t.commands().ClassifyArgv(append([]string{r.program}, r.args...), ws), cmd
}

// worse is the more severe of two verdicts; at the same class from
// Explicit up, with the reasons of both.
func worse(a, b shellpolicy.Verdict) shellpolicy.Verdict {
	switch {
	case b.Class > a.Class:
		return shellpolicy.Verdict{Class: b.Class, Reasons: append([]string(nil), b.Reasons...)}
	case b.Class == a.Class && b.Class >= shellpolicy.Explicit:
		a.Reasons = append(append([]string(nil), a.Reasons...), b.Reasons...)
	}
	return a
}
