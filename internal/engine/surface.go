package engine

import (
	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/provider"
)

// surface builds one turn's toolset and catalog for env: the registry from
// the host, then the catalog policy with the engine's always-load and
// allow/deny lists, and a user command's allowed-tools (nil: none).
func (e *Engine) surface(env TurnEnv, commandAllow []string) (Toolset, *catalog.Catalog) {
	ts := e.opts.Tools(env)
	cat := catalog.Build(ts.Registry, ts.MCP, catalog.Options{Mode: env.Mode, Posture: env.Posture,
		AllowShell: env.AllowShell, AlwaysLoad: e.opts.AlwaysLoad, Allow: e.opts.AllowTools, Deny: e.opts.DenyTools,
		CommandAllow: commandAllow})
	return ts, cat
}

// Surface is what the first request of a turn would carry.
type Surface struct {
	// Catalog is the turn's catalog: every entry, eager or deferred.
	Catalog *catalog.Catalog
	// Tools is the request's tools field (nil: the field is absent).
	Tools []provider.Tool
}

// FirstRequestSurface builds the tools the first request of a turn the
// user starts now would carry, by the same code the turn uses (surface,
// requestTools), without contacting a provider. `codewhale tools` reports
// it, so its digest is request 1's under strict mode and the allow/deny
// lists too.
func (e *Engine) FirstRequestSurface() Surface {
	e.mu.Lock()
	t := &turn{e: e, set: e.set, autoApprove: e.opts.AutoApprove}
	e.mu.Unlock()
	_, cat := e.surface(t.env(), nil)
	return Surface{Catalog: cat, Tools: requestTools(cat, e.opts.StrictTools)}
}
