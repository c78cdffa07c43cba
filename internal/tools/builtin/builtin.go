// Package builtin assembles the registry of built-in tools for one turn from
// the session's services, the mode and the features in force
// (tools.md §1.2).
package builtin

import (
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/plan"
)

// Services are the session-scoped stores the built-in tools share across
// turns. The zero value is not usable; call NewServices.
type Services struct {
	Workspace     string
	MemoryEnabled bool
	Plan          *plan.Store
}

// Options configure NewServices.
type Options struct {
	Workspace     string
	MemoryEnabled bool
}

// NewServices returns the services of one session.
func NewServices(o Options) *Services {
	return &Services{Workspace: o.Workspace, MemoryEnabled: o.MemoryEnabled, Plan: &plan.Store{}}
}

// Registry builds the registry for a turn in env's mode.
func (s *Services) Registry(env engine.TurnEnv) *tools.Registry {
	reg := tools.NewRegistry()
	reg.Register(plan.New(s.Plan))
	return reg
}

// Toolset is the engine's tool factory for this session.
func (s *Services) Toolset(env engine.TurnEnv) engine.Toolset {
	return engine.Toolset{Registry: s.Registry(env)}
}
