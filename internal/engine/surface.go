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
	turn  *turn
	model string
}

// System renders the system prompt the request would carry, as the turn
// renders it (the host's renderer included); hosts that only report tools
// never pay for it.
func (s Surface) System() string { return s.turn.renderSystem(s.model) }

// PromptEnv is what System is composed from.
func (s Surface) PromptEnv() PromptEnv { return s.turn.promptEnv(s.model) }

// FirstRequestSurface builds the tools and system prompt the first request
// of a turn the user starts now would carry, by the same code the turn
// uses (newTurn, surface, requestTools, renderSystem), without contacting
// a provider. `codewhale tools` reports it, so its digest is request 1's
// under strict mode and the allow/deny lists too.
func (e *Engine) FirstRequestSurface() Surface { return e.FirstRequestSurfaceFor(ProvenanceUser) }

// FirstRequestSurfaceFor is FirstRequestSurface for input of this
// provenance (a sub-agent's handoff runs narrowed).
func (e *Engine) FirstRequestSurfaceFor(provenance string) Surface {
	e.mu.Lock()
	t, _ := e.newTurn(provenance)
	model := e.sess.Model
	e.mu.Unlock()
	_, t.cat = e.surface(t.env(), nil)
	return Surface{Catalog: t.cat, Tools: requestTools(t.cat, e.opts.StrictTools), turn: t, model: model}
}
