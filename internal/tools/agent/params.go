package agent

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
)

// contract is the agent parameter contract (docs/ARCHITECTURE.md §6;
// CONTRACT.md §6.5): the published schema, the per-action table and the
// decoding come from this type and agentActions. The schema is flat and
// open (no additionalProperties): every action may carry every field (one
// an action does not read is type-checked and ignored), and a key that is
// neither a field nor an alias is refused with the tool's own text.
type contract struct {
	Action       string `json:"action,omitempty" jsonschema:"Default start."`
	Prompt       string `json:"prompt,omitempty" jsonschema:"start: the child's task, self-contained; message/followup: the text to send."`
	AgentID      string `json:"agent_id,omitempty" jsonschema:"Target of non-start actions (id, name or unique prefix). For start: an optional name."`
	Type         string `json:"type,omitempty" jsonschema:"Role. scout/planner/reviewer/verifier/consultant run read-only."`
	Model        string `json:"model,omitempty" jsonschema:"Model for the child (default: the session's model)."`
	MaxSteps     int    `json:"max_steps,omitempty"`
	WallTimeSecs int    `json:"wall_time_secs,omitempty"`
	ForkContext  bool   `json:"fork_context,omitempty" jsonschema:"Give the child the parent's current To-do."`
	Until        string `json:"until,omitempty"`
	TimeoutSecs  int    `json:"timeout_secs,omitempty"`
	Verbose      bool   `json:"verbose,omitempty"`
	Reason       string `json:"reason,omitempty" jsonschema:"Why (cancel, interrupt)."`
	// Worktree isolation (start): a new git worktree on its own branch.
	Worktree       bool   `json:"worktree,omitempty" jsonschema:"start: run in a new git worktree on its own branch (clean workspace only)."`
	WorktreeBranch string `json:"worktree_branch,omitempty" jsonschema:"Branch to create (default codewhale/<agent_id>)."`
	WorktreeBase   string `json:"worktree_base,omitempty" jsonschema:"Commit to branch from (default HEAD)."`
}

const toolName = "agent"

// synonyms are the other spellings of the actions (CONTRACT.md §6.5).
var synonyms = map[string]string{"spawn": "start", "run": "start", "list": "status", "inspect": "status",
	"progress": "peek", "queue_message": "message", "follow_up": "followup", "steer": "followup",
	"pause": "interrupt", "join": "wait", "await": "wait", "block": "wait", "stop": "cancel", "abort": "cancel",
	"clean": "cleanup"}

var (
	fields = []string{"prompt", "agent_id", "type", "model", "max_steps", "wall_time_secs", "fork_context", "until",
		"timeout_secs", "verbose", "reason", "worktree", "worktree_branch", "worktree_base"}
	targeted   = []string{"agent_id"}
	enumValues = map[string][]string{"type": builtinRoles, "until": {"completion", "all", "activity"}}
)

// fieldAliases fold onto their fields for every action.
var fieldAliases = []tools.Alias{{From: "message", To: "prompt"}, {From: "objective", To: "prompt"},
	{From: "id", To: "agent_id"}, {From: "session_name", To: "agent_id"}, {From: "name", To: "agent_id"}}

// agentActions is the per-action table. Every action allows every field;
// the required ones are checked in this order (a message names its target
// before its text).
var agentActions = &tools.Actions{
	Field:     "action",
	Default:   "start",
	KeepField: true,
	Rules: []tools.Rule{
		{Action: "start", Allowed: fields, Required: []string{"prompt"}},
		{Action: "status", Allowed: fields},
		{Action: "peek", Allowed: fields, Required: targeted},
		{Action: "message", Allowed: fields, Required: []string{"agent_id", "prompt"}},
		{Action: "followup", Allowed: fields, Required: []string{"agent_id", "prompt"}},
		{Action: "interrupt", Allowed: fields, Required: targeted},
		{Action: "wait", Allowed: fields},
		{Action: "cancel", Allowed: fields, Required: targeted},
		{Action: "cleanup", Allowed: fields},
	},
	Aliases: fieldAliases,
	Missing: missing,
	Unexpected: func(_ string, extra []string, r tools.Rule) error {
		return tools.InvalidInput("unknown agent field `%s`; supported fields: action, %s", extra[0],
			strings.Join(r.Allowed, ", "))
	},
}

// missing words an absent required field: a missing target is always
// MissingField; another names what was sent, under the canonical names.
func missing(_, field string, sent []string) error {
	if field == "agent_id" {
		return tools.MissingField(field)
	}
	args := tools.Args{}
	for _, k := range sent {
		for _, al := range fieldAliases {
			if al.From == k {
				k = al.To
			}
		}
		args[k] = nil
	}
	return args.Missing(field)
}

var params = tools.NewParams[contract](toolName, tools.ParamOptions[contract]{
	Actions: agentActions,
	Enums:   enumValues,
	Bounds: map[string]tools.Bound{"max_steps": {Min: 0, Max: 2000}, "wall_time_secs": {Min: 1, Max: 86400},
		"timeout_secs": {Min: 5, Max: 120}},
})

// decode is the one parse of a call (docs/ARCHITECTURE.md §6.3): `op` is
// read as `action` (an `action` sent beside it wins), the action's synonyms
// and case are folded, then the table applies (field aliases folded, a
// canonical field beside its alias wins; unknown keys refused; required
// fields checked). What the kinds cannot say is refused after: an enum
// value in the schema validator's text, a blank start prompt, an empty
// target.
func decode(raw json.RawMessage) (*tools.Decoded[contract], error) {
	args, err := params.ParseArgs(raw)
	if err != nil {
		return nil, err
	}
	if op, ok := args["op"]; ok {
		if !args.Has("action") {
			args["action"] = op
		}
		delete(args, "op")
	}
	action, err := actionOf(args)
	if err != nil {
		return nil, err
	}
	args["action"], _ = json.Marshal(action)
	d, err := params.DecodeArgs(args, nil)
	if err != nil {
		return nil, err
	}
	return d, checkValues(d)
}

// actionOf is the canonical action: start when none is sent, synonyms and
// case folded; anything else is refused with the contract's text.
func actionOf(args tools.Args) (string, error) {
	v, ok := args["action"]
	if !ok {
		return "start", nil
	}
	var sent string
	if json.Unmarshal(v, &sent) != nil {
		sent = string(v)
	}
	action := strings.ToLower(strings.TrimSpace(sent))
	if syn, ok := synonyms[action]; ok {
		action = syn
	}
	if slices.Contains(agentActions.Names(), action) {
		return action, nil
	}
	return "", tools.InvalidInput(invalidAction, sent)
}

// invalidAction is the contract's text (CONTRACT.md §6.5, exact); a test
// holds its list to the table's actions.
const invalidAction = "Invalid agent action '%s'. Use start, status, peek, message, followup, interrupt, wait, cancel, or cleanup."

// checkValues refuses what the kinds cannot: an `until` value, a blank
// start prompt, an empty target, a start name that could not be a file or
// branch name. A `type` is checked by the tool, whose defined types are
// values too.
func checkValues(d *tools.Decoded[contract]) error {
	in := d.In
	if d.Has("until") && !slices.Contains(enumValues["until"], in.Until) {
		return tools.Validate(toolName, params.Schema(), d.Input())
	}
	switch {
	case d.Action == "start" && strings.TrimSpace(in.Prompt) == "":
		return tools.InvalidInput("prompt must not be empty: give the child a self-contained task")
	case in.AgentID == "" && targets(d.Action):
		return tools.MissingField("agent_id")
	case d.Action == "start" && in.AgentID != "" && !validName(in.AgentID):
		return tools.InvalidInput("agent_id %q cannot name a sub-agent: use 1 to 64 letters, digits, '.', '_' or '-', "+
			"starting with a letter or digit", in.AgentID)
	}
	if d.Action != "start" || !in.Worktree {
		return nil
	}
	for _, f := range []struct{ key, value string }{{"worktree_branch", in.WorktreeBranch}, {"worktree_base", in.WorktreeBase}} {
		if d.Has(f.key) {
			if err := refName(f.key, f.value); err != nil {
				return err
			}
		}
	}
	return nil
}

// validName reports whether a start name is safe as the tail of an id that
// names a transcript file, a worktree folder and a branch.
func validName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case i > 0 && (r == '.' || r == '_' || r == '-'):
		default:
			return false
		}
	}
	return !strings.Contains(s, "..") && !strings.HasSuffix(s, ".lock") && !strings.HasSuffix(s, ".")
}

// targets reports whether action requires an agent_id.
func targets(action string) bool {
	for _, r := range agentActions.Rules {
		if r.Action == action {
			return slices.Contains(r.Required, "agent_id")
		}
	}
	return false
}

// policyOf decides the call's policy from the decoded value and the
// session's types: status, peek and wait are Auto, read-only and
// parallel-safe; a start returns before the child runs (detached) and is
// Auto for a read-only role, Suggest in a worktree (whatever it writes
// lands on its own branch, merged only by a person), Required otherwise;
// cleanup is Suggest; everything else is Required.
func policyOf(d *tools.Decoded[contract], ts *Types) tools.Policy {
	switch d.Action {
	case "status", "peek", "wait":
		return tools.Policy{Approval: tools.Auto, ReadOnly: true, Parallel: true}
	case "start":
		p := tools.Policy{Approval: tools.Required, Detached: true}
		switch {
		case d.In.Worktree:
			p.Approval = tools.Suggest
		case ts.readOnly(d.In.Type):
			p.Approval = tools.Auto
		}
		return p
	case "cleanup":
		// It removes only checkouts whose work is on their branches; git
		// refuses one with changes it would lose.
		return tools.Policy{Approval: tools.Suggest}
	}
	return tools.Policy{Approval: tools.Required}
}
