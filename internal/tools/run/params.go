package run

import (
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codewhale/codewhale/internal/tools"
)

// contract is Run's parameter contract (docs/ARCHITECTURE.md §6): the
// published schema, the per-action table and the decoding come from this
// type, runActions and customGate.
type contract struct {
	Action         string    `json:"action"`
	Args           string    `json:"args,omitempty" jsonschema:"tests: extra arguments for the test runner, shell-quoted (e.g. \"-run TestParse ./internal/...\" or \"-k slow\")."`
	AllFeatures    bool      `json:"all_features,omitempty" jsonschema:"tests: pass --all-features (Cargo only)."`
	Profile        string    `json:"profile,omitempty" jsonschema:"verifiers: which ecosystem's gates; default auto (all detected)."`
	Level          string    `json:"level,omitempty" jsonschema:"verifiers: quick (default) or full (adds tests, clippy, vet)."`
	MaxPythonFiles int       `json:"max_python_files,omitempty" jsonschema:"verifiers: most Python files the syntax gate checks; default 200, 1..1000."`
	Commands       tools.Raw `json:"commands,omitempty" jsonschema:"verifiers: custom gates, run as program + args with no shell."`
	Background     bool      `json:"background,omitempty" jsonschema:"verifiers: start each gate as a Bash background job and return at once."`
}

// runActions is the per-action table (CONTRACT.md §6.4): a key the action
// does not accept is refused, naming what it accepts.
var runActions = &tools.Actions{
	Field: "action",
	Rules: []tools.Rule{
		{Action: "tests", Allowed: []string{"args", "all_features"}},
		{Action: "verifiers", Allowed: []string{"profile", "level", "max_python_files", "commands", "background"}},
	},
	Unexpected: func(action string, extra []string, r tools.Rule) error {
		return &tools.Error{Kind: tools.KindInvalidInput, Field: extra[0], Msg: fmt.Sprintf(
			"unknown field '%s' for action %q; accepted fields: action, %s", extra[0], action, strings.Join(r.Allowed, ", "))}
	},
}

var params = tools.NewParams[contract]("Run", tools.ParamOptions[contract]{Actions: runActions, Closed: true,
	Enums: map[string][]string{"profile": profiles, "level": levels}, Shape: shape})

// shape publishes `commands`: at most maxCustomGates objects shaped by
// customGate, closed, name and program required.
func shape(s *jsonschema.Schema, _ []string) {
	c, ok := s.Properties["commands"]
	if !ok {
		return
	}
	items, err := jsonschema.For[customGate](nil)
	if err != nil {
		panic(err) // four plain fields; every tool's schema is derived in a test
	}
	c.Type, c.MaxItems, c.Items = "array", jsonschema.Ptr(maxCustomGates), items
	items.Properties["args"] = &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}}
}
