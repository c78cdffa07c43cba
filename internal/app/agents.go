package app

import (
	"fmt"
	"sync"

	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/toolset"
)

// typesMemo converts each project-context load's definitions once.
type typesMemo struct {
	mu    sync.Mutex
	state *projectctx.State
	types *agent.Types
}

// agentModel is the model of a sub-agent that names none: [agents]
// default_model, else the session's.
func (a *App) agentModel() string {
	if a.Cfg.AgentsModel != "" {
		return a.Cfg.AgentsModel
	}
	return a.Cfg.Model
}

// agentTypes are the session's defined sub-agent types as the agent tool
// takes them, from the current project-context load.
func (a *App) agentTypes() *agent.Types {
	st := a.Project().State()
	a.types.mu.Lock()
	defer a.types.mu.Unlock()
	if a.types.state != st {
		a.types.state, a.types.types = st, agent.NewTypes(typesOf(st.Agents))
	}
	return a.types.types
}

// typesOf converts the loaded definitions, the first agent.MaxDefinedTypes
// of them (/agents says how many more there are).
func typesOf(defs []projectctx.Agent) []agent.Type {
	defs = defs[:min(len(defs), agent.MaxDefinedTypes)]
	out := make([]agent.Type, 0, len(defs))
	for _, d := range defs {
		t := agent.Type{Name: d.Name, Description: d.Description, Instructions: d.Instructions, Tools: d.Tools,
			FileReadOnly: d.FileReadOnly, Model: d.Model, ReasoningEffort: d.ReasoningEffort, Mode: d.Mode, Source: d.Path}
		for _, rule := range d.Tools {
			if _, inPlan := toolset.KnownTool(rule); !inPlan {
				t.ActOnly = append(t.ActOnly, rule)
			}
		}
		if d.Project && !d.Trusted {
			t.Untrusted = fmt.Sprintf("is defined in %s, which is not trusted yet: review the file, then run /agents trust", d.Path)
		}
		out = append(out, t)
	}
	return out
}
