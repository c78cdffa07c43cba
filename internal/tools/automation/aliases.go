package automation

import "github.com/codewhale/codewhale/internal/tools"

// Aliases returns the replay-only automation_<action> spellings of the
// actions t offers.
func Aliases(t *Tool) []tools.Tool {
	var out []tools.Tool
	for _, a := range t.actions {
		out = append(out, tools.NewActionAlias(t, ToolName+"_"+a, a))
	}
	return out
}
