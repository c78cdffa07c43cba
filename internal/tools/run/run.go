// Package run implements the canonical Run tool (CONTRACT.md §6.4,
// §15.15): `tests` detects the workspace's test runner and reports counts and
// failing tests; `verifiers` runs independent verification gates. Every
// process goes through the shared jobs.Manager, under the same process-group,
// timeout and output rules as Bash, and is visible in /jobs while it runs.
package run

import (
	"context"
	"encoding/json"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
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
		Schema:  schema(),
		Caps:    []tools.Capability{tools.CapExecutesCode, tools.CapSandboxable},
		Approve: tools.Required,
	}}
}

func (t *Tool) python() string {
	if t.opts.Python != "" {
		return t.opts.Python
	}
	return "python3"
}

func schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"action":           map[string]any{"type": "string", "enum": actions},
			"args":             map[string]any{"type": "string", "description": "tests: extra arguments for the test runner, shell-quoted (e.g. \"-run TestParse ./internal/...\" or \"-k slow\")."},
			"all_features":     map[string]any{"type": "boolean", "description": "tests: pass --all-features (Cargo only)."},
			"profile":          map[string]any{"type": "string", "enum": profiles, "description": "verifiers: which ecosystem's gates; default auto (all detected)."},
			"level":            map[string]any{"type": "string", "enum": levels, "description": "verifiers: quick (default) or full (adds tests, clippy, vet)."},
			"max_python_files": map[string]any{"type": "integer", "description": "verifiers: most Python files the syntax gate checks; default 200, 1..1000."},
			"commands": map[string]any{"type": "array", "maxItems": maxCustomGates, "description": "verifiers: custom gates, run as program + args with no shell.",
				"items": map[string]any{"type": "object", "additionalProperties": false, "required": []any{"name", "program"},
					"properties": map[string]any{
						"name": map[string]any{"type": "string"}, "program": map[string]any{"type": "string"},
						"args": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
						"cwd":  map[string]any{"type": "string", "description": "inside the workspace"},
					}}},
			"background": map[string]any{"type": "boolean", "description": "verifiers: start each gate as a Bash background job and return at once."},
		},
		"required":             []any{"action"},
		"additionalProperties": false,
	}
}

// NormalizeInput gives the contract's messages (missing or unknown action,
// bad profile, level, limits, custom gates, unparsable args) before schema
// validation.
func (t *Tool) NormalizeInput(raw json.RawMessage) (json.RawMessage, error) {
	if _, err := parseInput(raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// StartsDetachedFor is true for verifiers started in the background.
func (t *Tool) StartsDetachedFor(raw json.RawMessage) bool {
	in, err := parseInput(raw)
	return err == nil && in.action == "verifiers" && in.background
}

// Execute runs one Run action and sizes its result to the call's budget
// (tools.Sized), saying how to get what was cut.
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	res, err := t.execute(ctx, tc, in)
	return tools.Sized(res, err, tc, "narrow the run with `args` (a test filter such as -run/-k, or one package) to see more of its output and excerpts")
}

func (t *Tool) execute(ctx context.Context, tc *tools.Context, raw json.RawMessage) (tools.Result, error) {
	in, err := parseInput(raw)
	if err != nil {
		return tools.Result{}, err
	}
	if in.action == "verifiers" {
		return t.verifiers(ctx, tc, in)
	}
	return t.tests(ctx, tc, in)
}

// jsonResult renders v as the content.
func jsonResult(v any, success bool, meta map[string]any) tools.Result {
	raw, err := json.Marshal(v)
	if err != nil {
		return tools.Failed("Run could not encode its result: " + err.Error())
	}
	return tools.Result{Content: string(raw), Success: success, Metadata: meta}
}
