// Package automation is the deferred `automation` action family
// (docs/CONTRACT.md, automation): create, inspect and manage scheduled work
// whose runs enqueue ordinary durable tasks (internal/automation holds the
// store and the scheduler).
package automation

import (
	"context"
	"encoding/json"
	"sync"

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
	// Ceiling is the most authority runs created now may get: the creating
	// session's posture.
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
		SchemaFunc: schemaFor(opts.ReadOnly),
		Caps:       caps,
		Deferred:   true,
		Approve:    approve,
	}}
}

var (
	fullSchema = sync.OnceValue(func() map[string]any { return buildSchema(false) })
	readSchema = sync.OnceValue(func() map[string]any { return buildSchema(true) })
)

func schemaFor(readOnly bool) func() map[string]any {
	if readOnly {
		return readSchema
	}
	return fullSchema
}

func buildSchema(readOnly bool) map[string]any {
	str := func(d string) map[string]any { return map[string]any{"type": "string", "description": d} }
	boolean := func(d string) map[string]any { return map[string]any{"type": "boolean", "description": d} }
	actions := Actions
	if readOnly {
		actions = readActions
	}
	enum := make([]any, len(actions))
	for i, a := range actions {
		enum[i] = a
	}
	props := map[string]any{
		"action":        map[string]any{"type": "string", "enum": enum, "description": "Operation."},
		"automation_id": str("The automation (auto_<8 hex>); alias id."),
		"id":            str("Alias of automation_id."),
		"limit":         map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "description": "list: at most this many (default 50)."},
	}
	if !readOnly {
		props["name"] = str("create/update: a short name.")
		props["prompt"] = str("create/update: what each run asks the agent to do.")
		props["schedule"] = str("create/update: FREQ=ONCE;AT=…, FREQ=HOURLY|DAILY|WEEKLY;…, or 5-field cron (alias rrule).")
		props["rrule"] = str("Alias of schedule.")
		props["timezone"] = str("create/update: IANA zone such as Europe/Berlin (default: the user's local zone).")
		props["mode"] = map[string]any{"type": "string", "enum": []any{"act", "plan", "operate"}, "description": "create/update: the runs' mode (default act)."}
		props["allow_shell"] = boolean("create/update: runs may use Bash (capped by this session's posture).")
		props["trust_mode"] = boolean("create/update: runs' file tools may leave the workspace (capped).")
		props["auto_approve"] = boolean("create/update: runs approve their own prompts (only under Full Access).")
		props["paused"] = boolean("create: start paused.")
		props["status"] = map[string]any{"type": "string", "enum": []any{"active", "paused"}, "description": "update: active or paused."}
	}
	return map[string]any{"type": "object", "required": []any{"action"}, "additionalProperties": false, "properties": props}
}

// NormalizeInput gives the family's short error forms and folds aliases.
func (t *Tool) NormalizeInput(raw json.RawMessage) (json.RawMessage, error) {
	args, err := tools.ParseArgs(raw)
	if err != nil {
		return nil, err
	}
	if _, err := args.FamilyAction(ToolName, t.actions); err != nil {
		return nil, err
	}
	for alias, canon := range map[string]string{"id": "automation_id", "rrule": "schedule"} {
		if v, ok := args[alias]; ok && !args.Has(canon) {
			args[canon] = v
			delete(args, alias)
		}
	}
	return args.Marshal(), nil
}

// ReadOnlyFor is true for list and read.
func (t *Tool) ReadOnlyFor(raw json.RawMessage) bool {
	a := tools.PeekAction(raw, "")
	return a == "list" || a == "read"
}

// ApprovalFor is Auto for list and read, Required for the rest (they
// schedule or start agent runs: code execution for policy).
func (t *Tool) ApprovalFor(raw json.RawMessage) tools.Approval {
	if t.ReadOnlyFor(raw) {
		return tools.Auto
	}
	return tools.Required
}

// ParallelSafeFor is true for reads.
func (t *Tool) ParallelSafeFor(raw json.RawMessage) bool { return t.ReadOnlyFor(raw) }

// Execute runs one action and sizes its result to the call's budget
// (tools.Sized), saying how to get what was cut.
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	res, err := t.execute(ctx, tc, in)
	return tools.Sized(res, err, tc, "read one automation with action=\"read\"")
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
	if t.opts.Store == nil {
		return tools.Result{}, tools.NotAvailable("automation: the automation store is not available in this session")
	}
	switch action {
	case "list":
		return t.list(args)
	case "read":
		return t.read(args)
	case "create":
		return t.create(tc, args)
	case "update":
		return t.update(args)
	case "pause", "resume":
		return t.setStatus(args, action)
	case "delete":
		return t.delete(args)
	default:
		return t.runNow(ctx, args)
	}
}
