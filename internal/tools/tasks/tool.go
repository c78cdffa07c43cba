package tasks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"sync"

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
	allActions  = []string{"create", "list", "read", "cancel", "gate_run"}
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
	t.Schema = canonicalSchema(o.actions(), o.ReadOnly)
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
	return &Tool{opts: o, Spec: tools.Spec{ToolName: "tasks", Desc: desc, Caps: caps, Approve: approve}}
}

// legacySchemas are the aliases' schemas, built once, when a replayed call
// first reads one.
var legacySchemas = map[string]func() map[string]any{
	"create": sync.OnceValue(func() map[string]any { return legacySchema("create") }),
	"list":   sync.OnceValue(func() map[string]any { return legacySchema("list") }),
	"read":   sync.OnceValue(func() map[string]any { return legacySchema("read") }),
}

// Aliases returns the hidden replay aliases task_create, task_list and
// task_read; with ReadOnly (Plan) only task_list and task_read.
func Aliases(o Options) []tools.Tool {
	var out []tools.Tool
	for _, a := range []string{"create", "list", "read"} {
		if o.ReadOnly && a == "create" {
			continue
		}
		t := newTool(o)
		t.forced, t.ToolName, t.Hidden = a, "task_"+a, true
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

func readAction(a string) bool { return a == "list" || a == "read" }

// action is the operation a call asks for, "" when it cannot be told.
func (t *Tool) action(in json.RawMessage) string {
	if t.forced != "" {
		return t.forced
	}
	a := tools.PeekAction(in, "")
	for _, x := range t.opts.actions() {
		if x == a {
			return a
		}
	}
	return ""
}

// ApprovalFor: list and read are Auto; create, cancel and gate_run are
// Required; an unknown action gets the tool-level value.
func (t *Tool) ApprovalFor(in json.RawMessage) tools.Approval {
	switch a := t.action(in); {
	case a == "":
		return t.Approve
	case readAction(a):
		return tools.Auto
	case a == "gate_run":
		// The gate command is judged like a Bash command: a hard block is
		// refused whatever the answer, so nothing is asked.
		if v, ok := t.gateVerdict(in); ok && v.Class == shellpolicy.Blocked {
			return tools.Auto
		} else if ok && v.Class == shellpolicy.Explicit {
			return tools.Explicit
		}
	}
	return tools.Required
}

// ApprovalReason is why a gate command needs explicit approval.
func (t *Tool) ApprovalReason(in json.RawMessage) string {
	if t.action(in) == "gate_run" {
		if v, ok := t.gateVerdict(in); ok {
			return v.Reason()
		}
	}
	return ""
}

func (t *Tool) ReadOnlyFor(in json.RawMessage) bool {
	if a := t.action(in); a != "" {
		return readAction(a)
	}
	return t.opts.ReadOnly
}

func (t *Tool) ParallelSafeFor(in json.RawMessage) bool { return t.ReadOnlyFor(in) }

// NormalizeInput gives the family's exact action errors and fills task_id
// from the active durable task (or refuses exactly when there is none). An
// alias drops any `action`; its fixed action wins.
func (t *Tool) NormalizeInput(in json.RawMessage) (json.RawMessage, error) {
	args, action, err := t.parse(in)
	if err != nil {
		return nil, err
	}
	if t.forced != "" {
		delete(args, "action")
	}
	if action == "read" || action == "cancel" {
		id, err := t.taskID(args)
		if err != nil {
			return nil, err
		}
		args["task_id"], _ = json.Marshal(id)
	}
	return args.Marshal(), nil
}

func (t *Tool) parse(in json.RawMessage) (tools.Args, string, error) {
	args, err := tools.ParseArgs(in)
	if err != nil {
		return nil, "", err
	}
	if t.forced != "" {
		return args, t.forced, nil
	}
	action, err := args.FamilyAction("tasks", t.opts.actions())
	return args, action, err
}

func (t *Tool) taskID(args tools.Args) (string, error) {
	id, ok, err := args.String("task_id")
	if err != nil {
		return "", err
	}
	if !ok || id == "" {
		if t.opts.ActiveTaskID == "" {
			return "", tools.InvalidInput("task_id is required when no durable task is active")
		}
		id = t.opts.ActiveTaskID
	}
	return id, nil
}

// Execute runs the call and sizes its result to the call's budget
// (tools.Sized), saying how to get what was cut.
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	res, err := t.execute(ctx, tc, in)
	return tools.Sized(res, err, tc, "use tasks action=\"read\" on one task, or list with a filter")
}

func (t *Tool) execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	args, action, err := t.parse(in)
	if err != nil {
		return tools.Result{}, err
	}
	if action == "gate_run" {
		return t.gateRun(ctx, tc, args)
	}
	if t.opts.Store == nil {
		return tools.Result{}, tools.NotAvailable("TaskManager is not attached")
	}
	switch action {
	case "create":
		return t.create(tc, args)
	case "list":
		return t.list(args)
	case "read":
		return t.read(args)
	default:
		return t.cancel(args)
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

func (t *Tool) create(tc *tools.Context, args tools.Args) (tools.Result, error) {
	req, err := t.newTask(tc, args)
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

// newTask reads create's fields; booleans default to the session's safe
// values (auto_approve is opt-in only).
func (t *Tool) newTask(tc *tools.Context, args tools.Args) (NewTask, error) {
	prompt, err := args.RequireString("prompt")
	if err != nil {
		return NewTask{}, err
	}
	req := NewTask{Prompt: prompt, Model: t.opts.DefaultModel, Mode: "agent", AllowShell: t.opts.AllowShell,
		OwnerSessionID: t.opts.SessionID}
	for field, dst := range map[string]*string{"model": &req.Model, "mode": &req.Mode, "workspace": &req.Workspace} {
		if v, ok, err := args.String(field); err != nil {
			return NewTask{}, err
		} else if ok && v != "" {
			*dst = v
		}
	}
	for field, dst := range map[string]*bool{"allow_shell": &req.AllowShell, "trust_mode": &req.TrustMode, "auto_approve": &req.AutoApprove} {
		if v, ok, err := args.Bool(field); err != nil {
			return NewTask{}, err
		} else if ok {
			*dst = v
		}
	}
	if req.Mode != "agent" && req.Mode != "plan" && req.Mode != "operate" {
		return NewTask{}, tools.InvalidInput("mode must be agent, plan or operate; got %q", req.Mode)
	}
	req.Workspace, err = t.workspace(tc, req.Workspace)
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

func (t *Tool) list(args tools.Args) (tools.Result, error) {
	limit, ok, err := args.Int("limit")
	if err != nil {
		return tools.Result{}, err
	}
	if !ok {
		limit = 20
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

func (t *Tool) read(args tools.Args) (tools.Result, error) {
	id, err := t.taskID(args)
	if err != nil {
		return tools.Result{}, err
	}
	rec, err := t.opts.Store.Get(id)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("%v", err)
	}
	return t.reply("task_read", rec, ""), nil
}

func (t *Tool) cancel(args tools.Args) (tools.Result, error) {
	id, err := t.taskID(args)
	if err != nil {
		return tools.Result{}, err
	}
	rec, d, err := t.opts.Store.Cancel(id)
	if err != nil {
		return tools.Result{}, tools.ExecutionFailed("%v", err)
	}
	return t.reply("task_cancel", rec, d), nil
}
