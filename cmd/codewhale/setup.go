package main

import (
	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools/builtin"
)

// runtime is what a session needs besides the engine: the resolved config
// and the tools' shared services.
type runtime struct {
	cfg      *config.Config
	services *builtin.Services
}

func newRuntime(cfg *config.Config) *runtime {
	return &runtime{cfg: cfg, services: builtin.NewServices(builtin.Options{
		Workspace: cfg.Workspace, MemoryEnabled: cfg.MemoryEnabled})}
}

// engineOptions are the engine settings every host shares.
func (r *runtime) engineOptions() engine.Options {
	cfg := r.cfg
	return engine.Options{
		Workspace:       cfg.Workspace,
		Mode:            cfg.Mode,
		Posture:         cfg.Posture,
		AllowShell:      cfg.AllowShell,
		MaxSteps:        cfg.MaxSteps,
		Model:           cfg.Model,
		ReasoningEffort: cfg.ReasoningEffort,
		StrictTools:     cfg.StrictTools,
		AlwaysLoad:      cfg.AlwaysLoad,
		NewClient: func(model string) (*provider.Client, error) {
			c := cfg.ClientConfig(model)
			c.UserAgent = "codewhale/" + version
			return provider.New(c)
		},
		Tools: r.services.Toolset,
	}
}
