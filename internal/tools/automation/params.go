package automation

import (
	"encoding/json"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codewhale/codewhale/internal/tools"
)

// contract is automation's parameter contract (docs/ARCHITECTURE.md §6): the
// published schema, the per-action table and the decoding come from this
// type and autoActions. The schema is flat: every action may carry every
// published key (a key an action does not read is type-checked and ignored),
// as it was before the type existed.
type contract struct {
	Action       string `json:"action" jsonschema:"Operation."`
	AutomationID string `json:"automation_id,omitempty" jsonschema:"The automation (auto_<8 hex>); alias id."`
	ID           string `json:"id,omitempty" jsonschema:"Alias of automation_id."`
	Limit        int    `json:"limit,omitempty" jsonschema:"list: at most this many (default 50)."`
	Name         string `json:"name,omitempty" jsonschema:"create/update: a short name."`
	Prompt       string `json:"prompt,omitempty" jsonschema:"create/update: what each run asks the agent to do."`
	Schedule     string `json:"schedule,omitempty" jsonschema:"create/update: FREQ=ONCE;AT=…, FREQ=HOURLY|DAILY|WEEKLY;…, or 5-field cron (alias rrule)."`
	Rrule        string `json:"rrule,omitempty" jsonschema:"Alias of schedule."`
	Timezone     string `json:"timezone,omitempty" jsonschema:"create/update: IANA zone such as Europe/Berlin (default: the user's local zone)."`
	Mode         string `json:"mode,omitempty" jsonschema:"create/update: the runs' mode (default act)."`
	AllowShell   bool   `json:"allow_shell,omitempty" jsonschema:"create/update: runs may use Bash (capped by this session's posture)."`
	TrustMode    bool   `json:"trust_mode,omitempty" jsonschema:"create/update: runs' file tools may leave the workspace (capped)."`
	AutoApprove  bool   `json:"auto_approve,omitempty" jsonschema:"create/update: runs approve their own prompts (only under Full Access)."`
	Paused       bool   `json:"paused,omitempty" jsonschema:"create: start paused."`
	Status       string `json:"status,omitempty" jsonschema:"update: active or paused."`
}

var (
	idKeys     = []string{"automation_id", "id"}
	writeKeys  = []string{"automation_id", "id", "name", "prompt", "schedule", "rrule", "timezone", "mode", "allow_shell", "trust_mode", "auto_approve", "paused", "status"}
	byID       = []string{"automation_id"}
	enumValues = map[string][]string{"mode": {"act", "plan", "operate"}, "status": {"active", "paused"}}
)

// autoActions is the per-action table (CONTRACT.md §6.12) with the family's
// short action texts. Required keys keep the wording they had when each
// action read them ("Input provided: action, …"), hence KeepField.
var autoActions = &tools.Actions{
	Field:     "action",
	Family:    true,
	KeepField: true,
	Rules: []tools.Rule{
		{Action: "list", Allowed: []string{"limit"}},
		{Action: "read", Allowed: idKeys, Required: byID},
		{Action: "create", Allowed: writeKeys, Required: []string{"prompt", "schedule"}},
		{Action: "update", Allowed: writeKeys, Required: byID},
		{Action: "pause", Allowed: idKeys, Required: byID},
		{Action: "resume", Allowed: idKeys, Required: byID},
		{Action: "delete", Allowed: idKeys, Required: byID},
		{Action: "run", Allowed: idKeys, Required: byID},
	},
	Aliases: []tools.Alias{{From: "id", To: "automation_id", Actions: []string{"read", "create", "update", "pause", "resume", "delete", "run"}},
		{From: "rrule", To: "schedule", Actions: []string{"create", "update"}}},
}

var params = tools.NewParams[contract](ToolName, tools.ParamOptions[contract]{Actions: autoActions, Closed: true,
	Shape: shape})

// shape publishes list's bounds and the enums of the properties the
// instance has (a Plan instance has neither mode nor status, and
// ParamOptions.Enums requires them).
func shape(s *jsonschema.Schema, _ []string) {
	if l, ok := s.Properties["limit"]; ok {
		l.Minimum, l.Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(100.0)
	}
	for prop, values := range enumValues {
		if ps, ok := s.Properties[prop]; ok {
			for _, v := range values {
				ps.Enum = append(ps.Enum, v)
			}
		}
	}
}

// decode is the one parse of a call. An alias sent beside its canonical key
// is dropped by the fold without being read, so its type is checked first:
// the schema publishes it as a string and a call with a wrongly typed alias
// was always refused.
func decode(raw json.RawMessage, actions []string) (*tools.Decoded[contract], error) {
	args, err := params.ParseArgs(raw)
	if err != nil {
		return nil, err
	}
	if _, err := args.FamilyAction(ToolName, actions); err != nil {
		return nil, err // the action is refused first, as the decoder would
	}
	for _, al := range autoActions.Aliases {
		if _, _, err := args.String(al.From); err != nil {
			return nil, err
		}
	}
	return params.DecodeArgs(args, actions)
}

// refuseBeyondSchema refuses what the decoder's kinds let through but the
// instance's schema does not (an enum value, limit outside 1..100, a key a
// Plan instance does not publish) with the schema validator's text, the
// text such a call got before the type existed.
func refuseBeyondSchema(d *tools.Decoded[contract], schema map[string]any) error {
	in := d.In
	props, _ := schema["properties"].(map[string]any)
	bad := (d.Has("limit") && (in.Limit < 1 || in.Limit > 100)) ||
		(d.Has("mode") && !slices.Contains(enumValues["mode"], in.Mode)) ||
		(d.Has("status") && !slices.Contains(enumValues["status"], in.Status))
	for _, k := range writeKeys {
		if _, ok := props[k]; !ok && d.Has(k) {
			bad = true
		}
	}
	if bad {
		return tools.Validate(ToolName, schema, d.Input())
	}
	return nil
}
