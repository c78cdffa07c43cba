package run

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale/codewhale/internal/tools"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

var (
	profiles = []string{"auto", "rust", "node", "python", "go"}
	levels   = []string{"quick", "full"}
)

// Custom verifier limits (CONTRACT.md §6.4).
const (
	maxCustomGates        = 12
	defaultMaxPythonFiles = 200
)

// customGate is one entry of `commands`; its schema is published from
// this type (shape).
type customGate struct {
	Name    string   `json:"name"`
	Program string   `json:"program"`
	Args    []string `json:"args,omitempty"`
	Cwd     string   `json:"cwd,omitempty" jsonschema:"inside the workspace"`
}

// input is a checked Run call.
type input struct {
	action         string
	args           []string // tests: shell-split `args`
	allFeatures    bool
	profile, level string
	maxPythonFiles int
	commands       []customGate
	background     bool
}

// parseInput is the one decode of a Run call: the action, unknown fields
// refused, every field's type, then the contract's value rules.
func parseInput(raw json.RawMessage) (input, error) {
	in := input{profile: "auto", level: "quick", maxPythonFiles: defaultMaxPythonFiles}
	d, err := params.Decode(raw)
	if err != nil {
		return in, err
	}
	in.action = d.Action
	if in.action == "tests" {
		return in, parseTests(d, &in)
	}
	return in, parseVerifiers(d, &in)
}

func parseTests(d *tools.Decoded[contract], in *input) error {
	var err error
	in.args, err = splitArgs(d.In.Args)
	in.allFeatures = d.In.AllFeatures
	return err
}

func parseVerifiers(d *tools.Decoded[contract], in *input) error {
	c := &d.In
	if d.Has("profile") {
		if !contains(profiles, c.Profile) {
			return tools.InvalidInput("Unsupported profile '%s'. Expected one of: %s", c.Profile, strings.Join(profiles, ", "))
		}
		in.profile = c.Profile
	}
	if d.Has("level") {
		if !contains(levels, c.Level) {
			return tools.InvalidInput("Unsupported level '%s'. Expected one of: %s", c.Level, strings.Join(levels, ", "))
		}
		in.level = c.Level
	}
	if d.Has("max_python_files") {
		if n := c.MaxPythonFiles; n < 1 || n > 1000 {
			return tools.InvalidInput("max_python_files must be between 1 and 1000")
		}
		in.maxPythonFiles = c.MaxPythonFiles
	}
	in.background = c.Background
	var err error
	if d.Has("commands") {
		in.commands, err = parseCommands(d.Raw("commands"))
	}
	return err
}

func parseCommands(raw json.RawMessage) ([]customGate, error) {
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, tools.InvalidInput("field 'commands' must be an array of {name, program, args, cwd} objects; got %s", tools.JSONType(raw))
	}
	if len(items) > maxCustomGates {
		return nil, tools.InvalidInput("commands may contain at most 12 custom gates")
	}
	gates := make([]customGate, 0, len(items))
	for _, item := range items {
		a := tools.Args(item)
		name, _, err := a.String("name")
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(name) == "" {
			return nil, tools.InvalidInput("Custom verifier command is missing 'name'")
		}
		for _, k := range a.Keys() {
			if !contains([]string{"name", "program", "args", "cwd"}, k) {
				return nil, tools.InvalidInput("Custom verifier '%s' has unknown field '%s'; accepted fields: name, program, args, cwd", name, k)
			}
		}
		g := customGate{Name: name}
		if g.Program, _, err = a.String("program"); err != nil {
			return nil, err
		}
		if strings.TrimSpace(g.Program) == "" {
			return nil, tools.InvalidInput("Custom verifier '%s' is missing 'program'", name)
		}
		if g.Args, _, err = a.StringList("args"); err != nil {
			return nil, err
		}
		if g.Cwd, _, err = a.String("cwd"); err != nil {
			return nil, err
		}
		gates = append(gates, g)
	}
	return gates, nil
}

// splitArgs splits `args` into words the way a shell would, without
// expanding anything: $VAR, $(…) and globs are refused rather than
// silently turned into something else.
func splitArgs(s string) ([]string, error) {
	bad := func(err error) error {
		return tools.InvalidInput("Failed to parse 'args' as shell-style tokens: %v", err)
	}
	var words []*syntax.Word
	for w, err := range syntax.NewParser().WordsSeq(strings.NewReader(s)) {
		if err != nil {
			return nil, bad(err)
		}
		words = append(words, w)
	}
	for _, w := range words {
		var found string
		syntax.Walk(w, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ExtGlob, *syntax.BraceExp:
				found = wordText(w)
			}
			return found == ""
		})
		if found != "" {
			return nil, bad(fmt.Errorf("%s uses shell expansion; quote it with single quotes to pass it literally", found))
		}
	}
	fields, err := expand.Fields(&expand.Config{Env: expand.ListEnviron()}, words...)
	if err != nil {
		return nil, bad(err)
	}
	return fields, nil
}

func wordText(w *syntax.Word) string {
	var b strings.Builder
	_ = syntax.NewPrinter().Print(&b, w)
	return b.String()
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }
