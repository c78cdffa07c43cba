package work

import (
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// work_update's published schema and decoder agree (the canonical input,
// statuses folded, validates against the schema).
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	paramtest.Agree(t, paramtest.Case{Tool: New(NewLedger()),
		Samples: map[string]any{"todos": []any{map[string]any{"content": "x", "status": "done"}}}})
}

// The granular replay aliases' schemas and decoders agree (their canonical
// inputs, statuses folded, validate against the schemas).
func TestGranularAliasesAgree(t *testing.T) {
	t.Parallel()
	for _, tool := range Aliases(NewLedger()) {
		if strings.HasSuffix(tool.Name(), "_write") {
			continue // work_update's own contract, checked above
		}
		paramtest.Agree(t, paramtest.Case{Tool: tool, Samples: map[string]any{"status": "done"}})
	}
}

// An alias's input is read once, without its action: a missing field's
// "Input provided" does not list the action, an id below 1 gets the schema
// validator's words, and a status of any JSON type gets the contract's.
func TestGranularAliasRefusals(t *testing.T) {
	t.Parallel()
	reg := registry(NewLedger())
	for _, c := range []struct{ name, in, want string }{
		{"todo_update", `{"action":"x","status":"done"}`, "missing required field 'id'. Input provided: status"},
		{"todo_update", `{"id":1}`, "missing required field 'status'. Input provided: id"},
		{"todo_update", `{"id":0,"status":"done"}`, "arguments do not match the tool's schema: at /id"},
		{"todo_update", `{"id":"1","status":"done"}`, "field 'id' must be an integer"},
		{"checklist_update", `{"id":1,"status":7}`, "unknown todo status '7'"},
		{"todo_add", `{"content":3}`, "Todo item missing 'content'"},
		{"todo_add", `{"status":"done"}`, "Todo item missing 'content'"},
		{"checklist_list", `[]`, "must be a JSON object"},
	} {
		_, err := call(t, reg, c.name, c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: err %v, want %q", c.name, c.in, err, c.want)
		}
	}
}
