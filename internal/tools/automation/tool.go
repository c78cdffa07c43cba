// Package automation is the deferred `automation` action family
// (docs/CONTRACT.md, automation): create, inspect and manage scheduled work
// whose runs enqueue ordinary durable tasks (internal/automation holds the
// store and the scheduler).
package automation

import (
	"context"
	"encoding/json"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/tools"
)

// ToolName is the family's name.
const ToolName = "automation"

// Actions in contract order; readActions are all Plan offers.
var (
	Actions     = []string{"list", "read", "create", "update", "pause", "resume", "delete", "run"}
	readActions = []string{"list", "read"}
)

// Options configure the tool.
type Options struct {
	Store   *auto.Store
	Enqueue auto.Enqueue
	// ReadOnly offers list and read only (Plan mode).
	ReadOnly bool
	// Ceiling is the most authority runs created, changed or started now
	// may get: this session's posture.
	Ceiling func() auto.Ceiling
	// Wake tells this process's scheduler the store changed (nil: none).
	Wake func()
	// Workspace is where the automation's runs work.
	Workspace string
}

// Tool is automation.
type Tool struct {
	tools.Spec
	opts    Options
	actions []string
}

// New returns the automation tool.
func New(opts Options) *Tool {
	actions, caps, approve := Actions, []tools.Capability{tools.CapExecutesCode, tools.CapRequiresApproval}, tools.Required
	if opts.ReadOnly {
		actions, caps, approve = readActions, []tools.Capability{tools.CapReadOnly}, tools.Auto
	}
	if opts.Ceiling == nil {
		opts.Ceiling = func() auto.Ceiling { return auto.Ceiling{Posture: "ask"} }
	}
	return &Tool{opts: opts, actions: actions, Spec: tools.Spec{
		ToolName: ToolName,
		Desc: "Scheduled work that survives restarts: each run enqueues a normal durable task (see tasks). " +
			"list / read (an automation and its recent runs); create {name, prompt, schedule}, update, pause, " +
			"resume, delete, run (now) need approval. schedule: FREQ=ONCE;AT=2026-12-05T09:00, " +
			"FREQ=HOURLY[;INTERVAL=N][;BYMINUTE=M], FREQ=DAILY;AT=09:30, FREQ=WEEKLY;BYDAY=MO,FR;AT=08:00, or a " +
			"5-field cron expression, in `timezone` (default the user's). Runs get no more authority than this " +
			"session has.",
		SchemaFunc: func() map[string]any { return params.SchemaFor(actions) },
		Caps:       caps,
		Deferred:   true,
		Approve:    approve,
	}}
}

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3). list and read
// are Auto, read-only and parallel-safe; every other action is Required
// (it schedules or starts agent runs: code execution for policy), and a
// create, update, resume or run carries the authority it leaves the runs
// (tools.Policy.Grant), which the approval card shows.
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := decode(raw, t.actions)
	if err != nil {
		return nil, err
	}
	if err := refuseBeyondSchema(d, t.InputSchema()); err != nil {
		return nil, err
	}
	p := tools.Policy{Approval: tools.Required, Grant: t.grant(d)}
	if d.Action == "list" || d.Action == "read" {
		p = tools.Policy{Approval: tools.Auto, ReadOnly: true, Parallel: true}
	}
	return tools.NewCall(d.Input(), p, func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		res, err := t.run(ctx, tc, d)
		return tools.Sized(res, err, tc, "read one automation with action=\"read\"")
	}), nil
}

// Execute decodes and runs one call (tools.Execute).
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

func (t *Tool) run(ctx context.Context, tc *tools.Context, d *tools.Decoded[contract]) (tools.Result, error) {
	if t.opts.Store == nil {
		return tools.Result{}, tools.NotAvailable("automation: the automation store is not available in this session")
	}
	in := &d.In
	switch d.Action {
	case "list":
		return t.list(in)
	case "read":
		return t.read(in)
	case "create":
		return t.create(tc, d)
	case "update":
		return t.update(d)
	case "pause", "resume":
		return t.setStatus(in, d.Action)
	case "delete":
		return t.delete(in)
	default:
		return t.runNow(ctx, in)
	}
}
