package app

import (
	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/tools/handles"
	"github.com/codewhale/codewhale/internal/tools/web"
)

// newWeb builds the session's Web tool from the resolved [network] and
// [search] configuration.
func newWeb(cfg *config.Config, store *handles.Store) *web.Tool {
	sc := web.SearchConfig{Provider: cfg.Web.Provider, Fallback: cfg.Web.Fallback, Backends: map[string]web.Endpoint{}}
	for name, ep := range cfg.Web.Backends {
		sc.Backends[name] = web.Endpoint{BaseURL: ep.BaseURL, APIKey: ep.APIKey}
	}
	return web.New(web.Options{Policy: cfg.Web.Policy, Search: sc, Handles: store})
}
