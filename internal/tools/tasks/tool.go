package tasks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/shellpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// Options configure the tasks tool.
type Options struct {
	Store        *Store // nil: every store action is NotAvailable
	ReadOnly     bool   // Plan mode: only list and read
	Workspace    string // fallback when the call's context has none
	ActiveTaskID string // the durable task this thread runs inside, if any
	DefaultModel string // model recorded for a created task that names none
	AllowShell   bool   // allow_shell default for created tasks
	SessionID    string // recorded as owner_session_id
	// Creator is the authority of the session calling create; a task gets
	// no more (Authority.Cap).
	Creator Authority
	// Commands classifies gate commands (internal/shellpolicy); nil uses
	// one with the process-wide credential guard.
	Commands *shellpolicy.Env
	// Jobs runs gate commands (under the session's sandbox, in a process
	// tree killed as a whole); nil makes gate_run NotAvailable.
	Jobs *jobs.Manager
}

var (
	allActions  = taskActions.Names()
	readActions = []string{"list", "read"}
)

const noRunnerWarning = "no task runner is attached to this session: the task stays queued and does not execute until a runner picks it up"

// Tool is `tasks`, or a replay alias fixed to one action.
type Tool struct {
	tools.Spec
	opts   Options
	forced string // alias action; "" for the canonical tool
}

// New returns the canonical `tasks` tool: eager, approval per action. With
// ReadOnly it advertises and runs only list and read (Plan mode).
func New(o Options) *Tool {
	t := newTool(o)
	actions := o.actions()
	t.SchemaFunc = func() map[string]any { return params.SchemaFor(actions) }
	return t
}

// newTool is New without the schema, which the aliases replace.
func newTool(o Options) *Tool {
	caps := []tools.Capability{tools.CapExecutesCode, tools.CapWritesFiles, tools.CapRequiresApproval}
	approve := tools.Required
	desc := "Durable, restart-aware background tasks, distinct from sub-agents. Actions: create (queue a task; " +
		"approval), list, read (full id or unique prefix), cancel (approval), gate_run (run a verification " +
		"command such as fmt/check/clippy/test and record structured evidence with a log artifact; approval)."
	if o.ReadOnly {
		caps, approve = []tools.Capability{tools.CapReadOnly}, tools.Auto
		desc = "Inspect durable tasks. Actions: list, read (full id or unique prefix)."
	}
	return &Tool{opts: o, Spec: tools.Spec{ToolName: toolName, Desc: desc, Caps: caps, Approve: approve}}
}

// Aliases returns the hidden replay aliases task_create, task_list and
// task_read; with ReadOnly (Plan) only task_list and task_read. Each
// decodes to the canonical tasks input of its action (any `action` sent is
// replaced) and runs exactly that action.
func Aliases(o Options) []tools.Tool {
	var out []tools.Tool
	for _, a := range []string{"create", "list", "read"} {
		if o.ReadOnly && a == "create" {
			continue
		}
		t := newTool(o)
		t.forced, t.ToolName, t.Hidden, t.AliasOf = a, "task_"+a, true, toolName
		t.Desc, t.SchemaFunc = "Replay-only alias of tasks action "+a+".", legacySchemas[a]
		t.Caps, t.Approve = []tools.Capability{tools.CapReadOnly}, tools.Auto
		if a == "create" {
			t.Caps, t.Approve = []tools.Capability{tools.CapWritesFiles, tools.CapRequiresApproval}, tools.Required
		}
		out = append(out, t)
	}
	return out
}

func (o Options) actions() []string {
	if o.ReadOnly {
		return readActions
	}
	return allActions
}

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3) and decides its
// policy from the decoded value: list and read are Auto, read-only and
// parallel-safe; create and cancel are Required; gate_run's command is
// judged like a Bash command: a hard block is Auto (the run refuses it
// whatever the answer, so nothing is asked), a destructive-but-legitimate
// one Explicit with the classifier's reason, the rest Required.
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := t.decode(raw)
	if err != nil {
		return nil, err
	}
	return tools.NewCall(d.Input(), t.policyOf(d), func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		res, err := t.run(ctx, tc, d)
		return tools.Sized(res, err, tc, "use tasks action=\"read\" on one task, or list with a filter")
	}), nil
}

func (t *Tool) policyOf(d *tools.Decoded[contract]) tools.Policy {
	switch d.Action {
	case "list", "read":
		return tools.Policy{Approval: tools.Auto, ReadOnly: true, Parallel: true}
	case "gate_run":
		switch v := t.gateVerdict(d.In.Command, d.In.Cwd); v.Class {
		case shellpolicy.Blocked:
			return tools.Policy{Approval: tools.Auto}
		case shellpolicy.Explicit:
			return tools.Policy{Approval: tools.Explicit, Reason: v.Reason()}
		}
	}
	return tools.Policy{Approval: tools.Required}
}

// Execute decodes and runs one call (tools.Execute).
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

// run executes the decoded call; it never reads the raw input again.
func (t *Tool) run(ctx context.Context, tc *tools.Context, d *tools.Decoded[contract]) (tools.Result, error) {
	if d.Action == "gate_run" {
		return t.gateRun(ctx, tc, d)
	}
	if t.opts.Store == nil {
		return tools.Result{}, tools.NotAvailable("TaskManager is not attached")
	}
	switch d.Action {
	case "create":
		return t.create(tc, d)
	case "list":
		return t.list(d)
	case "read":
		return t.read(d.In.TaskID)
	default:
		return t.cancel(d.In.TaskID)
	}
}

// taskReply is the JSON content of create, read and cancel.
type taskReply struct {
	Summary          string      `json:"summary"`
	Task             TaskRecord  `json:"task"`
	Disposition      Disposition `json:"disposition,omitempty"`
	LifecycleWarning *string     `json:"lifecycle_warning"`
	// AuthorityNotGranted says which requested flags the creator could not
	// give (issue 11 §5).
	AuthorityNotGranted *string `json:"authority_not_granted,omitempty"`
}

func (t *Tool) reply(label string, rec TaskRecord, d Disposition) tools.Result {
	return t.replyNote(label, rec, d, "")
}

// replyNote is reply with a note on authority the create did not grant.
func (t *Tool) replyNote(label string, rec TaskRecord, d Disposition, note string) tools.Result {
	r := taskReply{Summary: label + ": " + rec.ID + " (" + rec.Status.Title() + ")", Task: rec, Disposition: d}
	if note != "" {
		r.AuthorityNotGranted = &note
	}
	if rec.Status == Queued && !t.opts.Store.HasRunner() {
		w := noRunnerWarning
		r.LifecycleWarning = &w
	}
	res := jsonResult(r, true)
	res.Metadata = map[string]any{"task_id": rec.ID, "status": string(rec.Status)}
	if t.forced != "" {
		res.Metadata["invoked_as"] = t.ToolName
	}
	return res
}

func jsonResult(v any, ok bool) tools.Result {
	body, _ := json.MarshalIndent(v, "", "  ")
	return tools.Result{Content: string(body), Success: ok}
}

func (t *Tool) create(tc *tools.Context, d *tools.Decoded[contract]) (tools.Result, error) {
	req, err := t.newTask(tc, d)
	if err != nil {
		return tools.Result{}, err
	}
	capped := t.opts.Creator.Cap(&req)
	rec, err := t.opts.Store.Create(req)
	if err == ErrEmptyPrompt {
		return tools.Result{}, tools.InvalidInput("%v", err)
	}
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("task_create failed: %v", err)
	}
	res := t.replyNote("task_create", rec, "", cappedNote(capped, req.Posture))
	if len(capped) > 0 {
		res.Metadata["authority_not_granted"] = capped
	}
	return res, nil
}

// newTask is create's request: booleans not sent take the session's safe
// values (auto_approve is opt-in only); the mode defaults to agent. The
// creator's cap (Authority.Cap) applies after.
func (t *Tool) newTask(tc *tools.Context, d *tools.Decoded[contract]) (NewTask, error) {
	in := d.In
	req := NewTask{Prompt: in.Prompt, Model: t.opts.DefaultModel, Mode: "agent", AllowShell: t.opts.AllowShell,
		TrustMode: in.TrustMode, AutoApprove: in.AutoApprove, OwnerSessionID: t.opts.SessionID}
	if in.Model != "" {
		req.Model = in.Model
	}
	if in.Mode != "" {
		req.Mode = in.Mode
	}
	if d.Has("allow_shell") {
		req.AllowShell = in.AllowShell
	}
	var err error
	req.Workspace, err = t.workspace(tc, in.Workspace)
	return req, err
}

// workspace makes the task's workspace absolute and checks it exists.
func (t *Tool) workspace(tc *tools.Context, raw string) (string, error) {
	base := t.opts.Workspace
	if tc != nil && tc.Workspace != "" {
		base = tc.Workspace
	}
	if raw == "" {
		return base, nil
	}
	if !filepath.IsAbs(raw) {
		raw = filepath.Join(base, raw)
	}
	if fi, err := os.Stat(raw); err != nil || !fi.IsDir() {
		return "", tools.InvalidInput("workspace must be an existing directory: %s", raw)
	}
	return tools.Canonical(raw), nil
}

func (t *Tool) list(d *tools.Decoded[contract]) (tools.Result, error) {
	limit := defaultLimit
	if d.Has("limit") {
		limit = d.In.Limit
	}
	tasks := t.opts.Store.List(min(max(limit, 1), 100))
	out := struct {
		Summary    string        `json:"summary"`
		Tasks      []TaskSummary `json:"tasks"`
		LoadReport *LoadReport   `json:"load_report,omitempty"`
	}{Summary: strconv.Itoa(len(tasks)) + " durable task(s)", Tasks: tasks}
	if r := t.opts.Store.Report(); !r.Clean() {
		out.LoadReport = &r
	}
	res := jsonResult(out, true)
	res.Metadata = map[string]any{"count": len(tasks)}
	if t.forced != "" {
		res.Metadata["invoked_as"] = t.ToolName
	}
	return res, nil
}

func (t *Tool) read(id string) (tools.Result, error) {
	rec, err := t.opts.Store.Get(id)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("%v", err)
	}
	return t.reply("task_read", rec, ""), nil
}

func (t *Tool) cancel(id string) (tools.Result, error) {
	rec, d, err := t.opts.Store.Cancel(id)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("%v", err)
	}
	return t.reply("task_cancel", rec, d), nil
}
