package tasks

import (
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// dispatchInputs are tasks calls as a model sends them: a create carrying
// every authority flag, a list, a gate whose command the classifier judges,
// and a replay alias.
var dispatchInputs = []struct{ name, tool, in string }{
	{"create", "tasks", `{"action":"create","prompt":"Port the catalog","mode":"plan","auto_approve":true,"trust_mode":false,"allow_shell":true}`},
	{"list", "tasks", `{"action":"list","limit":5}`},
	{"gate_run", "tasks", `{"action":"gate_run","gate":"test","command":"go test ./...","timeout_ms":60000}`},
	{"task_read", "task_read", `{"task_id":"task_0123abcd"}`},
}

// BenchmarkDispatch is the engine's path for one tasks call up to running
// it: the registry's Prepare and the policy the engine reads. Untyped, this
// parsed the arguments six times or more (normalise, schema validation,
// then each raw-input policy method; gate_run's approval and reason each
// classified the command).
func BenchmarkDispatch(b *testing.B) {
	store, _, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	reg := tools.NewRegistry()
	o := Options{Store: store, Workspace: b.TempDir()}
	reg.Register(New(o))
	for _, a := range Aliases(o) {
		reg.Register(a)
	}
	for _, c := range dispatchInputs {
		paramtest.BenchPrepare(b, reg, c.name, c.tool, c.in, paramtest.Inline)
	}
}
