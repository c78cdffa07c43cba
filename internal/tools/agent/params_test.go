package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

func testTool() *Tool {
	return New(NewManager(Options{Spawner: SpawnFunc(func(context.Context, ChildConfig) (Run, error) {
		return nil, fmt.Errorf("no children in this test")
	})}), nil)
}

// agent's published schema, per-action table and decoder agree.
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	paramtest.Agree(t, paramtest.Case{Tool: testTool(), Actions: params.Actions(),
		Samples: map[string]any{"type": "scout", "until": "all", "timeout_secs": 5}})
}

// The policy is decided from the decoded call, synonyms and aliases
// folded: a start of a read-only role is Auto, of any other role Required,
// and detached; status, peek and wait are Auto, read-only, parallel-safe.
func TestPolicyFromTheDecodedCall(t *testing.T) {
	t.Parallel()
	tool := testTool()
	for in, want := range map[string]tools.Policy{
		`{"prompt":"x","type":"scout"}`:                           {Approval: tools.Auto, Detached: true},
		`{"op":"spawn","objective":"x","type":"reviewer"}`:        {Approval: tools.Auto, Detached: true},
		`{"prompt":"x"}`:                                          {Approval: tools.Required, Detached: true},
		`{"action":"run","prompt":"x","type":"builder"}`:          {Approval: tools.Required, Detached: true},
		`{"action":"status"}`:                                     {Approval: tools.Auto, ReadOnly: true, Parallel: true},
		`{"op":"join","id":"a","timeout_secs":30}`:                {Approval: tools.Auto, ReadOnly: true, Parallel: true},
		`{"action":"progress","name":"a"}`:                        {Approval: tools.Auto, ReadOnly: true, Parallel: true},
		`{"action":"steer","session_name":"a","message":"go on"}`: {Approval: tools.Required},
		`{"action":"ABORT","agent_id":"a"}`:                       {Approval: tools.Required},
		`{"action":"pause","agent_id":"a"}`:                       {Approval: tools.Required},
	} {
		c, err := tools.PrepareCall(tool, json.RawMessage(in))
		if err != nil || c.Policy != want {
			t.Errorf("%s: %+v %v, want %+v", in, c, err, want)
		}
	}
}

// The canonical input folds `op`, the synonyms and the field aliases (the
// first alias in table order wins; a canonical field beside its alias
// wins), so permission rules, hooks, the journal and the approval card see
// one spelling.
func TestCanonicalInput(t *testing.T) {
	t.Parallel()
	tool := testTool()
	for in, want := range map[string]string{
		`{"op":"Spawn","objective":"x","type":"scout","max_steps":9}`: `{"action":"start","max_steps":9,"prompt":"x","type":"scout"}`,
		`{"action":"follow_up","name":"b","id":"a","message":"m"}`:    `{"action":"followup","agent_id":"a","prompt":"m"}`,
		`{"op":"stop","action":"peek","agent_id":"a","id":"z"}`:       `{"action":"peek","agent_id":"a"}`,
		`{"prompt":"x","model":null}`:                                 `{"action":"start","prompt":"x"}`,
	} {
		c, err := tools.PrepareCall(tool, json.RawMessage(in))
		if err != nil || string(c.Input) != want {
			t.Errorf("%s: %v %v, want %s", in, c, err, want)
		}
	}
}

// A hostile call that spells a field twice gets one reading: the policy is
// decided from the value the canonical input (the approval card) shows,
// and that is the value that runs.
func TestDuplicateKeysHaveOneReading(t *testing.T) {
	t.Parallel()
	tool := testTool()
	c, err := tools.PrepareCall(tool, json.RawMessage(`{"prompt":"x","type":"scout","type":"builder"}`))
	if err != nil || c.Policy.Approval != tools.Required || string(c.Input) != `{"action":"start","prompt":"x","type":"builder"}` {
		t.Fatalf("%+v %v", c, err)
	}
	c, err = tools.PrepareCall(tool, json.RawMessage(`{"op":"cancel","action":"status","op":"start","prompt":"x"}`))
	if err != nil || c.Policy.Approval != tools.Auto || !c.Policy.ReadOnly || string(c.Input) != `{"action":"status","prompt":"x"}` {
		t.Fatalf("%+v %v", c, err)
	}
}

// refusals are the model-visible texts of malformed calls, all refused at
// Prepare, before anyone is asked to approve them: the contract's action
// and unknown-field texts, the strict readers' type errors (CONTRACT.md
// §2.3), the missing-field texts, and the schema validator's for an enum
// value or a bound.
var refusals = []struct{ in, want string }{
	{`{}`,
		`Invalid input for tool 'agent': missing required field 'prompt'. Input provided: action`},
	{`[]`,
		`Invalid input for tool 'agent': tool input must be a JSON object`},
	{`{"action":7}`,
		`Invalid input for tool 'agent': Invalid agent action '7'. Use start, status, peek, message, followup, interrupt, wait, cancel, or cleanup.`},
	{`{"action":"dance"}`,
		`Invalid input for tool 'agent': Invalid agent action 'dance'. Use start, status, peek, message, followup, interrupt, wait, cancel, or cleanup.`},
	{`{"action":" SPAWN "}`,
		`Invalid input for tool 'agent': missing required field 'prompt'. Input provided: action`},
	{`{"op":"STOP"}`,
		`Tool 'agent' is missing required field 'agent_id'`},
	{`{"action":"start"}`,
		`Invalid input for tool 'agent': missing required field 'prompt'. Input provided: action`},
	{`{"action":"start","type":"scout"}`,
		`Invalid input for tool 'agent': missing required field 'prompt'. Input provided: action, type`},
	{`{"prompt":7}`,
		`Invalid input for tool 'agent': field 'prompt' must be a string; got number. Received: 7`},
	{`{"prompt":"  "}`,
		`Invalid input for tool 'agent': prompt must not be empty: give the child a self-contained task`},
	{`{"prompt":"x","type":"bogus"}`,
		`Invalid input for tool 'agent': arguments do not match the tool's schema: at /type: value must be one of "worker", "scout", "planner", "reviewer", "builder", "verifier", "consultant", "custom"`},
	{`{"prompt":"x","max_steps":-1}`,
		`Invalid input for tool 'agent': arguments do not match the tool's schema: at /max_steps: must be >= 0 but found -1`},
	{`{"prompt":"x","max_steps":5000}`,
		`Invalid input for tool 'agent': arguments do not match the tool's schema: at /max_steps: must be <= 2000 but found 5000`},
	{`{"prompt":"x","max_steps":"5"}`,
		`Invalid input for tool 'agent': field 'max_steps' must be an integer; got string. Received: "5"`},
	{`{"prompt":"x","wall_time_secs":0}`,
		`Invalid input for tool 'agent': arguments do not match the tool's schema: at /wall_time_secs: must be >= 1 but found 0`},
	{`{"prompt":"x","isolation":"worktree"}`,
		"Invalid input for tool 'agent': unknown agent field `isolation`; supported fields: action, prompt, agent_id, type, model, max_steps, wall_time_secs, fork_context, until, timeout_secs, verbose, reason, worktree, worktree_branch, worktree_base"},
	{`{"prompt":"x","agent_id":"../../../etc/x"}`,
		`Invalid input for tool 'agent': agent_id "../../../etc/x" cannot name a sub-agent: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit`},
	{`{"prompt":"x","name":"-rf"}`,
		`Invalid input for tool 'agent': agent_id "-rf" cannot name a sub-agent: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit`},
	{`{"prompt":"x","worktree":true,"worktree_branch":"--upload-pack=touch /tmp/pwned"}`,
		`Invalid input for tool 'agent': worktree_branch "--upload-pack=touch /tmp/pwned" may not start with "-"`},
	{`{"prompt":"x","worktree":true,"worktree_base":"-c"}`,
		`Invalid input for tool 'agent': worktree_base "-c" may not start with "-"`},
	{`{"prompt":"x","worktree":true,"worktree_branch":"../../outside"}`,
		`Invalid input for tool 'agent': worktree_branch "../../outside" is not a branch or commit name (no spaces, backslashes or "..")`},
	{`{"prompt":"x","worktree":true,"worktree_base":""}`,
		`Invalid input for tool 'agent': worktree_base must not be empty; leave it out for the default`},
	{`{"prompt":"x","fork_context":"yes"}`,
		`Invalid input for tool 'agent': field 'fork_context' must be a boolean; got string. Received: "yes"`},
	{`{"prompt":"x","verbose":1}`,
		`Invalid input for tool 'agent': field 'verbose' must be a boolean; got number. Received: 1`},
	{`{"action":"wait","until":"never"}`,
		`Invalid input for tool 'agent': arguments do not match the tool's schema: at /until: value must be one of "completion", "all", "activity"`},
	{`{"action":"wait","timeout_secs":1}`,
		`Invalid input for tool 'agent': arguments do not match the tool's schema: at /timeout_secs: must be >= 5 but found 1`},
	{`{"action":"wait","timeout_secs":"5"}`,
		`Invalid input for tool 'agent': field 'timeout_secs' must be an integer; got string. Received: "5"`},
	{`{"action":"peek"}`,
		`Tool 'agent' is missing required field 'agent_id'`},
	{`{"action":"peek","agent_id":""}`,
		`Tool 'agent' is missing required field 'agent_id'`},
	{`{"action":"message","agent_id":"a1"}`,
		`Invalid input for tool 'agent': missing required field 'prompt'. Input provided: action, agent_id`},
	{`{"action":"message","id":"a1"}`,
		`Invalid input for tool 'agent': missing required field 'prompt'. Input provided: action, agent_id`},
	{`{"action":"followup","prompt":"x"}`,
		`Tool 'agent' is missing required field 'agent_id'`},
	{`{"action":"cancel","agent_id":7}`,
		`Invalid input for tool 'agent': field 'agent_id' must be a string; got number. Received: 7`},
	{`{"action":"cancel","reason":7,"agent_id":"a"}`,
		`Invalid input for tool 'agent': field 'reason' must be a string; got number. Received: 7`},
	{`{"action":"status","agent_id":7}`,
		`Invalid input for tool 'agent': field 'agent_id' must be a string; got number. Received: 7`},
	{`{"op":"dance","action":"start"}`,
		`Invalid input for tool 'agent': missing required field 'prompt'. Input provided: action`},
	{`{"action":"dance","worktree":1}`,
		`Invalid input for tool 'agent': Invalid agent action 'dance'. Use start, status, peek, message, followup, interrupt, wait, cancel, or cleanup.`},
}

func TestInvalidActionListsTheTable(t *testing.T) {
	t.Parallel()
	names := params.Actions().Names()
	last := len(names) - 1
	if want := "Use " + strings.Join(names[:last], ", ") + ", or " + names[last] + "."; !strings.Contains(invalidAction, want) {
		t.Errorf("%q does not list the actions %v", invalidAction, names)
	}
}

func TestRefusalTexts(t *testing.T) {
	t.Parallel()
	tool := testTool()
	for _, c := range refusals {
		_, err := tools.PrepareCall(tool, json.RawMessage(c.in))
		if got := tools.AsError(err).Render(toolName); err == nil || got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}
