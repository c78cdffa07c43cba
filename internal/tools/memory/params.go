package memory

import "github.com/codewhale/codewhale/internal/tools"

// input is the remember tool's parameter contract: the published schema,
// the enums and the decoding all come from this one type
// (docs/ARCHITECTURE.md §6; CONTRACT.md §6.6).
type input struct {
	Note     string `json:"note,omitempty" jsonschema:"The note: one terse sentence (append, revise)."`
	Scope    string `json:"scope,omitempty" jsonschema:"global (default) or this repository."`
	Action   string `json:"action,omitempty" jsonschema:"append (default), revise or retire."`
	Replaces string `json:"replaces,omitempty" jsonschema:"The existing entry to revise or retire (its text, or a unique part of it)."`
	Evidence string `json:"evidence,omitempty" jsonschema:"Why the entry changes (revise, retire)."`
}

var params = tools.NewParams[input]("remember", tools.ParamOptions[input]{
	Enums: map[string][]string{"scope": {string(Global), string(Workspace)}, "action": {"append", "revise", "retire"}},
	Check: checkInput,
})

// checkInput applies the defaults and gives the contract's exact messages
// for a bad scope or action, before schema validation would word them.
func checkInput(d *tools.Decoded[input]) error {
	in := &d.In
	if !d.Has("scope") {
		in.Scope = string(Global)
	}
	if in.Scope != string(Global) && in.Scope != string(Workspace) {
		return tools.InvalidInput("unknown memory scope `%s`; expected global or workspace", in.Scope)
	}
	if !d.Has("action") {
		in.Action = "append"
	}
	switch in.Action {
	case "append", "revise", "retire":
		return nil
	}
	return tools.InvalidInput("unknown memory action `%s`; expected append, revise, or retire", in.Action)
}

// require returns an error for the first of fields the call did not send.
func require(d *tools.Decoded[input], fields ...string) error {
	for _, f := range fields {
		if !d.Has(f) {
			return d.Missing(f)
		}
	}
	return nil
}
