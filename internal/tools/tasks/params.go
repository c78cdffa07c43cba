package tasks

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codewhale/codewhale/internal/tools"
)

// contract is the tasks parameter contract (docs/ARCHITECTURE.md §6): the
// published schema of `tasks` and of its replay aliases, the per-action
// table and the decoding all come from this type and taskActions. The
// schema is closed; every published key is type-checked whichever action
// the call names, and a key its action does not read is ignored, as it was
// before the type existed.
type contract struct {
	Action      string `json:"action" jsonschema:"Action to perform."`
	TaskID      string `json:"task_id,omitempty" jsonschema:"Full task id or unique prefix (read, cancel); defaults to the active durable task."`
	Limit       int    `json:"limit,omitempty" jsonschema:"How many tasks to list, newest first (list)."`
	Prompt      string `json:"prompt,omitempty" jsonschema:"What the durable task should do (create)."`
	Model       string `json:"model,omitempty" jsonschema:"Model for the task (create); defaults to the session's."`
	Workspace   string `json:"workspace,omitempty" jsonschema:"Workspace directory (create); defaults to the current workspace."`
	Mode        string `json:"mode,omitempty" jsonschema:"Mode the task runs in (create); default agent."`
	AllowShell  bool   `json:"allow_shell,omitempty" jsonschema:"Let the task use the shell (create)."`
	TrustMode   bool   `json:"trust_mode,omitempty" jsonschema:"Lift the workspace boundary for the task (create)."`
	AutoApprove bool   `json:"auto_approve,omitempty" jsonschema:"Approve the task's tool calls without asking (create); default false."`
	Gate        string `json:"gate,omitempty" jsonschema:"Gate category (gate_run)."`
	Command     string `json:"command,omitempty" jsonschema:"Command to run through /bin/sh (gate_run)."`
	Cwd         string `json:"cwd,omitempty" jsonschema:"Working directory inside the workspace (gate_run); default the workspace."`
	TimeoutMS   int    `json:"timeout_ms,omitempty" jsonschema:"Timeout in ms (gate_run); default 120000."`
}

const (
	toolName     = "tasks"
	defaultLimit = 20
)

var (
	createKeys = []string{"prompt", "model", "workspace", "mode", "allow_shell", "trust_mode", "auto_approve"}
	// enumValues are published per property and refused otherwise with the
	// schema validator's text (Shape publishes them: a Plan instance has
	// neither mode nor gate, and ParamOptions.Enums requires both).
	enumValues = map[string][]string{"mode": {"agent", "plan", "operate"},
		"gate": {"fmt", "check", "clippy", "test", "custom"}}
)

// taskActions is the per-action table (CONTRACT.md §6.7) with the family's
// short action texts. Required keys keep the wording they had when each
// action read them ("Input provided: action, …"), hence KeepField.
var taskActions = &tools.Actions{
	Field:     "action",
	Family:    true,
	KeepField: true,
	Rules: []tools.Rule{
		{Action: "create", Allowed: createKeys, Required: []string{"prompt"}},
		{Action: "list", Allowed: []string{"limit"}},
		{Action: "read", Allowed: []string{"task_id"}},
		{Action: "cancel", Allowed: []string{"task_id"}},
		{Action: "gate_run", Allowed: []string{"gate", "command", "cwd", "timeout_ms"}, Required: []string{"gate", "command"}},
	},
}

var params = tools.NewParams[contract](toolName, tools.ParamOptions[contract]{
	Actions: taskActions,
	Closed:  true,
	Bounds:  map[string]tools.Bound{"limit": {Min: 1, Max: 100}, "timeout_ms": {Min: minGateTimeout, Max: maxGateTimeout}},
	Shape:   shape,
	Check:   check,
})

// shape publishes list's default and the enums of the properties the
// instance has.
func shape(s *jsonschema.Schema, _ []string) {
	if l, ok := s.Properties["limit"]; ok {
		l.Default = json.RawMessage("20")
	}
	for prop, values := range enumValues {
		if ps, ok := s.Properties[prop]; ok {
			for _, v := range values {
				ps.Enum = append(ps.Enum, v)
			}
		}
	}
}

// check is the value rule the kinds cannot state: a gate needs a command
// that is more than blanks (refused before anyone is asked to approve it).
func check(d *tools.Decoded[contract]) error {
	if d.Action == "gate_run" && strings.TrimSpace(d.In.Command) == "" {
		return tools.InvalidInput("command is empty; pass the gate command to run")
	}
	return nil
}

// legacyRequired are the replay aliases' required keys (CONTRACT.md §3.5):
// their schemas predate `action` and keep these. task_read's task_id is
// filled from the active durable task before it is checked.
var legacyRequired = map[string][]string{"create": {"prompt"}, "read": {"task_id"}}

// legacySchemas are the aliases' schemas: the instance schema of their one
// action without `action`, requiring legacyRequired. Built once, when a
// replayed call first reads one.
var legacySchemas = map[string]func() map[string]any{
	"create": sync.OnceValue(func() map[string]any { return legacySchema("create") }),
	"list":   sync.OnceValue(func() map[string]any { return legacySchema("list") }),
	"read":   sync.OnceValue(func() map[string]any { return legacySchema("read") }),
}

func legacySchema(action string) map[string]any {
	s := maps.Clone(params.SchemaFor([]string{action}))
	props := maps.Clone(s["properties"].(map[string]any))
	delete(props, taskActions.Field)
	s["properties"] = props
	delete(s, "required")
	if req := legacyRequired[action]; req != nil {
		s["required"] = toAny(req)
	}
	return s
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// decode is the one parse of a call (docs/ARCHITECTURE.md §6.3). An alias
// sets its action over whatever was sent; the action is refused first, as
// before; read and cancel take the active durable task when no task_id is
// sent (so the canonical input names the task acted on).
func (t *Tool) decode(raw json.RawMessage) (*tools.Decoded[contract], error) {
	args, err := params.ParseArgs(raw)
	if err != nil {
		return nil, err
	}
	actions := t.opts.actions()
	if t.forced != "" {
		args[taskActions.Field], _ = json.Marshal(t.forced)
		actions = []string{t.forced}
	}
	action, err := args.FamilyAction(toolName, actions)
	if err != nil {
		return nil, err
	}
	if action == "read" || action == "cancel" {
		if err := t.defaultTaskID(args); err != nil {
			return nil, err
		}
	}
	if t.forced != "" {
		for _, f := range legacyRequired[t.forced] {
			if args.Has(f) {
				continue
			}
			if err := tools.Validate(t.Name(), t.InputSchema(), withoutAction(args)); err != nil {
				return nil, err
			}
		}
	}
	d, err := params.DecodeArgs(args, actions)
	if err != nil {
		return nil, err
	}
	return d, t.refuseBeyondSchema(d)
}

// defaultTaskID fills task_id from the active durable task when it is
// absent or empty, or refuses exactly when there is none.
func (t *Tool) defaultTaskID(args tools.Args) error {
	id, _, err := args.String("task_id")
	if err != nil {
		return err
	}
	if id != "" {
		return nil
	}
	if t.opts.ActiveTaskID == "" {
		return tools.InvalidInput("task_id is required when no durable task is active")
	}
	args["task_id"], _ = json.Marshal(t.opts.ActiveTaskID)
	return nil
}

// refuseBeyondSchema refuses what the decoder's kinds let through but the
// instance's schema does not (an enum value, a key a Plan instance or an
// alias does not publish) with the schema validator's text, the text such
// a call got before the type existed.
func (t *Tool) refuseBeyondSchema(d *tools.Decoded[contract]) error {
	schema := t.InputSchema()
	props, _ := schema["properties"].(map[string]any)
	bad := d.Has("mode") && !slices.Contains(enumValues["mode"], d.In.Mode) ||
		d.Has("gate") && !slices.Contains(enumValues["gate"], d.In.Gate)
	for _, r := range taskActions.Rules {
		for _, k := range r.Allowed {
			if _, ok := props[k]; !ok && d.Has(k) {
				bad = true
			}
		}
	}
	if !bad {
		return nil
	}
	in := d.Input()
	if t.forced != "" {
		args, err := tools.ParseArgs(in)
		if err != nil {
			return err
		}
		in = withoutAction(args)
	}
	return tools.Validate(t.Name(), schema, in)
}

// withoutAction is an alias's input as its legacy schema describes it.
func withoutAction(args tools.Args) json.RawMessage {
	out := maps.Clone(args)
	delete(out, taskActions.Field)
	return out.Marshal()
}
