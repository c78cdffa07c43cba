package rlm

import "github.com/codewhale/codewhale/internal/tools"

// Aliases returns the replay-only rlm_<action> spellings.
func Aliases(t *Tool) []tools.Tool {
	var out []tools.Tool
	for _, a := range Actions {
		out = append(out, tools.NewActionAlias(t, ToolName+"_"+a, a))
	}
	return out
}
