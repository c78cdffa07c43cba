package bash

import (
	"testing"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// dispatchInputs are Bash calls as a model sends them: a read-only command
// (classified Auto), a build with aliases (seconds, working_dir), a wait.
var dispatchInputs = []struct{ name, in string }{
	{"read-only", `{"command":"git status && rg -n TODO internal"}`},
	{"build", `{"command":"go build ./...","timeout_secs":120,"working_dir":"cmd"}`},
	{"wait", `{"action":"wait","id":"shell_0123abcd","timeout":2000}`},
}

// BenchmarkDispatch is the engine's path for one Bash call up to running
// it: the registry's Prepare (one decode, the command classified once) and
// the policy the engine reads. Untyped, this parsed the arguments six times
// (normalise, schema validation, then each of ApprovalFor, ReadOnlyFor,
// ParallelSafeFor and StartsDetachedFor) and classified the command up to
// three times (a one-entry cache caught the repeats).
func BenchmarkDispatch(b *testing.B) {
	m, err := jobs.NewManager(jobs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	reg := tools.NewRegistry()
	reg.Register(New(Options{Jobs: m}))
	for _, c := range dispatchInputs {
		paramtest.BenchPrepare(b, reg, c.name, "Bash", c.in, paramtest.Inline)
	}
}
