package tasks

import (
	"encoding/json"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// refusals are the model-visible texts of malformed calls, as rendered:
// the family's action texts, the strict readers' type errors (CONTRACT.md
// §2.3: a typed tool's), the contract's missing-field texts, and the schema
// validator's for what the kinds cannot say (an enum, a bound, a key the
// instance or a replay alias does not publish).
var refusals = []struct {
	plan     bool
	name, in string
	want     string
}{
	{false, "tasks", `{}`,
		"Invalid input for tool 'tasks': tasks: missing `action` (one of: create, list, read, cancel, gate_run)"},
	{false, "tasks", `[]`,
		`Invalid input for tool 'tasks': tool input must be a JSON object`},
	{false, "tasks", `{"action":7}`,
		"Invalid input for tool 'tasks': tasks: missing `action` (one of: create, list, read, cancel, gate_run)"},
	{false, "tasks", `{"action":"create"}`,
		`Invalid input for tool 'tasks': missing required field 'prompt'. Input provided: action`},
	{false, "tasks", `{"action":"create","model":"m"}`,
		`Invalid input for tool 'tasks': missing required field 'prompt'. Input provided: action, model`},
	{false, "tasks", `{"action":"create","prompt":7}`,
		`Invalid input for tool 'tasks': field 'prompt' must be a string; got number. Received: 7`},
	{false, "tasks", `{"action":"create","prompt":"x","mode":"bogus"}`,
		`Invalid input for tool 'tasks': arguments do not match the tool's schema: at /mode: value must be one of "agent", "plan", "operate"`},
	{false, "tasks", `{"action":"create","prompt":"x","mode":""}`,
		`Invalid input for tool 'tasks': arguments do not match the tool's schema: at /mode: value must be one of "agent", "plan", "operate"`},
	{false, "tasks", `{"action":"create","prompt":"x","auto_approve":"true"}`,
		`Invalid input for tool 'tasks': field 'auto_approve' must be a boolean; got string. Received: "true"`},
	{false, "tasks", `{"action":"create","prompt":"x","extra":1}`,
		"Invalid input for tool 'tasks': tasks create does not take `extra`; nothing was run. Its fields are: action, prompt, model, workspace, mode, allow_shell, trust_mode, auto_approve."},
	{false, "tasks", `{"action":"list","limit":0}`,
		`Invalid input for tool 'tasks': arguments do not match the tool's schema: at /limit: must be >= 1 but found 0`},
	{false, "tasks", `{"action":"list","limit":"5"}`,
		`Invalid input for tool 'tasks': field 'limit' must be an integer; got string. Received: "5"`},
	{false, "tasks", `{"action":"list","limit":2.5}`,
		`Invalid input for tool 'tasks': field 'limit' must be an integer; got number. Received: 2.5`},
	{false, "tasks", `{"action":"read","task_id":7}`,
		`Invalid input for tool 'tasks': field 'task_id' must be a string; got number. Received: 7`},
	{false, "tasks", `{"action":"gate_run"}`,
		`Invalid input for tool 'tasks': missing required field 'gate'. Input provided: action`},
	{false, "tasks", `{"action":"gate_run","gate":"test"}`,
		`Invalid input for tool 'tasks': missing required field 'command'. Input provided: action, gate`},
	{false, "tasks", `{"action":"gate_run","gate":"bogus","command":"x"}`,
		`Invalid input for tool 'tasks': arguments do not match the tool's schema: at /gate: value must be one of "fmt", "check", "clippy", "test", "custom"`},
	{false, "tasks", `{"action":"gate_run","gate":"test","command":"  "}`,
		`Invalid input for tool 'tasks': command is empty; pass the gate command to run`},
	{false, "tasks", `{"action":"gate_run","gate":"test","command":"true","timeout_ms":5}`,
		`Invalid input for tool 'tasks': arguments do not match the tool's schema: at /timeout_ms: must be >= 1000 but found 5`},
	{false, "tasks", `{"action":"gate_run","gate":"test","command":"true","cwd":7}`,
		`Invalid input for tool 'tasks': field 'cwd' must be a string; got number. Received: 7`},
	{false, "task_create", `{}`,
		`Invalid input for tool 'task_create': arguments do not match the tool's schema: at /: missing properties: 'prompt'`},
	{false, "task_create", `{"model":"x"}`,
		`Invalid input for tool 'task_create': arguments do not match the tool's schema: at /: missing properties: 'prompt'`},
	{false, "task_create", `{"prompt":"x","limit":3}`,
		"Invalid input for tool 'task_create': tasks create does not take `limit`; nothing was run. Its fields are: action, prompt, model, workspace, mode, allow_shell, trust_mode, auto_approve."},
	{false, "task_create", `{"prompt":"x","mode":"bogus"}`,
		`Invalid input for tool 'task_create': arguments do not match the tool's schema: at /mode: value must be one of "agent", "plan", "operate"`},
	{false, "task_list", `{"prompt":"x"}`,
		"Invalid input for tool 'task_list': tasks list does not take `prompt`; nothing was run. Its fields are: action, limit."},
	{false, "task_list", `{"limit":500}`,
		`Invalid input for tool 'task_list': arguments do not match the tool's schema: at /limit: must be <= 100 but found 500`},
	{false, "task_read", `{"task_id":7}`,
		`Invalid input for tool 'task_read': field 'task_id' must be a string; got number. Received: 7`},
	{false, "task_read", `{"task_id":"a","limit":1}`,
		"Invalid input for tool 'task_read': tasks read does not take `limit`; nothing was run. Its fields are: action, task_id."},
	{true, "tasks", `{"action":"list","prompt":"x"}`,
		"Invalid input for tool 'tasks': tasks list does not take `prompt`; nothing was run. Its fields are: action, limit."},
	{true, "tasks", `{"action":"create","prompt":"x"}`,
		"Invalid input for tool 'tasks': tasks: invalid action `create` (one of: list, read)"},
	{true, "tasks", `{"action":"gate_run","gate":"test","command":"true"}`,
		"Invalid input for tool 'tasks': tasks: invalid action `gate_run` (one of: list, read)"},
	{true, "tasks", `{"action":"list","command":"x"}`,
		"Invalid input for tool 'tasks': tasks list does not take `command`; nothing was run. Its fields are: action, limit."},
}

func TestRefusalTexts(t *testing.T) {
	t.Parallel()
	store, _ := openStore(t, t.TempDir())
	act, plan := taskRegistry(Options{Store: store}), taskRegistry(Options{Store: store, ReadOnly: true})
	for _, c := range refusals {
		reg := act
		if c.plan {
			reg = plan
		}
		call, err := reg.Prepare(c.name, json.RawMessage(c.in))
		if err == nil {
			_, err = call.Run(t.Context(), &tools.Context{Workspace: t.TempDir()})
		}
		if got := tools.AsError(err).Render(c.name); err == nil || got != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.name, c.in, got, c.want)
		}
	}
}
