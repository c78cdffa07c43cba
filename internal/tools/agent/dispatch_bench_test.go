package agent_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// dispatchInputs are agent calls as a model sends them: a start of a
// read-only role, a wait spelled with a synonym and aliases, a steer.
var dispatchInputs = []struct{ name, in string }{
	{"start", `{"prompt":"look around the catalog package","type":"scout","max_steps":50}`},
	{"wait", `{"op":"join","id":"agent_0123","timeout_secs":30}`},
	{"followup", `{"action":"steer","name":"agent_0123","message":"also check the registry"}`},
}

// BenchmarkDispatch is the engine's path for one agent call up to running
// it: the registry's Prepare and the policy the engine reads. Untyped, this
// parsed and normalised the arguments six times (NormalizeInput, schema
// validation, then each of the four raw-input policy methods).
func BenchmarkDispatch(b *testing.B) {
	m := agent.NewManager(agent.Options{Spawner: agent.SpawnFunc(func(context.Context, agent.ChildConfig) (agent.Run, error) {
		return nil, fmt.Errorf("unused")
	})})
	reg := tools.NewRegistry()
	reg.Register(agent.New(m, nil))
	for _, c := range dispatchInputs {
		paramtest.BenchPrepare(b, reg, c.name, "agent", c.in, nil)
	}
}
