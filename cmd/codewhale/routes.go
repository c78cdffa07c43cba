package main

import (
	"context"

	"github.com/codewhale/codewhale/internal/app"
	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tui"
)

// tuiRoutes is tui.Routes over the session's App: /provider switches the
// App's route (the engine's next client is built from it), /model lists
// the route's models through the model cache.
type tuiRoutes struct{ a *app.App }

func (r tuiRoutes) Providers() []tui.ProviderChoice {
	var out []tui.ProviderChoice
	for _, id := range r.a.Cfg.ProviderIDs() {
		c, err := r.a.Cfg.Route(id)
		if err != nil {
			continue // a table without a base URL is not a route
		}
		out = append(out, tui.ProviderChoice{ID: id, Name: config.ProviderDisplayName(id), BaseURL: c.BaseURL,
			HasKey: routeHasKey(c)})
	}
	return out
}

func (r tuiRoutes) Switch(id string) (tui.Route, *provider.ModelTable, error) {
	c, err := r.a.SwitchRoute(id)
	if err != nil {
		return tui.Route{}, nil, err
	}
	return tuiRoute(c), c.ModelTable(), nil
}

func (r tuiRoutes) Models(ctx context.Context, refresh bool) ([]provider.LiveModel, error) {
	c := r.a.Route()
	client, err := provider.New(c.ClientConfig(c.Model))
	if err != nil {
		return nil, err
	}
	return c.ModelCache().Models(ctx, client, refresh)
}

// tuiRoute is the header's and /status's view of a route.
func tuiRoute(c *config.Config) tui.Route {
	return tui.Route{Provider: c.Provider, Model: c.Model, BaseURL: c.BaseURL, Effort: c.ReasoningEffort,
		HasKey: routeHasKey(c), KeySource: c.KeySource, KeyEnv: c.ClientConfig("").KeyEnv, KeyHost: keyHost(c)}
}

// keyHost is the host the route's key goes to, "" when it sends none.
func keyHost(c *config.Config) string {
	if c.APIKey == "" || c.Withheld {
		return ""
	}
	return c.KeyHost
}

func routeHasKey(c *config.Config) bool {
	return c.APIKey != "" || c.KeyOptional || provider.IsLoopback(c.BaseURL)
}
