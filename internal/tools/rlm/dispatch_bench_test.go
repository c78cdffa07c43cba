package rlm

import (
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// dispatchInputs are rlm calls as a model sends them: an open of inline
// text, an eval (approval required) and a configure.
var dispatchInputs = []struct {
	name, in string
	approval tools.Approval
}{
	{"open", `{"action":"open","name":"log","content":"line 1\nline 2\n"}`, tools.Auto},
	{"eval", `{"action":"eval","name":"log","code":"print(len(content.splitlines()))","timeout_ms":30000}`, tools.Required},
	{"configure", `{"action":"configure","name":"log","output_feedback":"metadata","sub_rlm_max_depth":1}`, tools.Auto},
}

// BenchmarkDispatch is the engine's path for one rlm call up to running
// it: the registry's Prepare and the policy the engine reads.
func BenchmarkDispatch(b *testing.B) {
	reg := tools.NewRegistry()
	reg.Register(New(Options{}))
	for _, c := range dispatchInputs {
		paramtest.BenchPrepare(b, reg, c.name, ToolName, c.in, func(p tools.Policy) bool { return p.Approval == c.approval })
	}
}
