package tui

import (
	"context"
	"errors"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
)

// fakeRoutes stands in for the App's routes.
type fakeRoutes struct {
	switched []string
	listed   int
	models   []provider.LiveModel
}

func (f *fakeRoutes) Providers() []ProviderChoice {
	return []ProviderChoice{{ID: "deepseek", BaseURL: "https://api.deepseek.com/beta", HasKey: true},
		{ID: "ollama", BaseURL: "http://localhost:11434/v1", HasKey: true},
		{ID: "openrouter", BaseURL: "https://openrouter.ai/api/v1"}}
}

func (f *fakeRoutes) Switch(id string) (Route, *provider.ModelTable, error) {
	if id == "nosuch" {
		return Route{}, nil, errors.New(`provider "nosuch" has no base URL`)
	}
	f.switched = append(f.switched, id)
	return Route{Provider: id, BaseURL: "http://localhost:11434/v1", HasKey: true}, &provider.ModelTable{Free: id == "ollama"}, nil
}

func (f *fakeRoutes) Models(context.Context, bool) ([]provider.LiveModel, error) {
	f.listed++
	return f.models, nil
}

// CONTRACT.md §14.7: /provider switches provider and model for the next turn
// and the header says which; /model lists what the server lists; a model
// without a known window or price shows `ctx ? 128k assumed` and `$ ?`.
// README.md "Providers: OpenRouter, local models, your gateway": /provider; `ctx ? 128k assumed`, `$ ?`.
// README.md "Slash commands": /provider switches provider for the next turn; /model lists the server's models
func TestProviderSwitchAndLiveModels(t *testing.T) {
	routes := &fakeRoutes{models: []provider.LiveModel{{ID: "qwen3:8b"}, {ID: "llama3.2:3b"}}}
	d := newDirect(t, 140, 30, func(o *Options) { o.Routes = routes })
	d.submit("/provider nosuch")
	d.mustShow(`Provider not switched: provider "nosuch" has no base URL`)
	d.submit("/provider ollama qwen3:8b")
	if len(routes.switched) != 1 || d.eng.lastOp() != (engine.SetModel{Model: "qwen3:8b"}) {
		t.Fatalf("switched %v, last op %#v", routes.switched, d.eng.lastOp())
	}
	d.mustShow("ollama · qwen3:8b", "Provider set to ollama")
	d.runCmd(d.submit("/model"))
	if routes.listed != 1 {
		t.Fatalf("/model asked the server %d times", routes.listed)
	}
	d.mustShow("llama3.2:3b", "listed by the server")
	d.key("esc")
	d.events(engine.TurnStarted{TurnID: "t"}, engine.TurnUsage{Usage: provider.Usage{InputTokens: 2000, OutputTokens: 10},
		Model: "qwen3:8b"}, engine.TurnComplete{TurnID: "t", Status: engine.TurnCompleted})
	d.mustShow("2.0k · ctx ? 128k assumed", "$0.00") // a local server's model is free
	d.submit("/provider openrouter")
	d.mustShow("openrouter · server default")
}

// The cost chip never sums a price it does not know.
func TestUnpricedModelShowsUnknownCost(t *testing.T) {
	d := newDirect(t, 140, 30, func(o *Options) {
		o.Route = Route{Provider: "gw", Model: "mystery", BaseURL: "https://gw.example.com/v1", HasKey: true}
		o.Models = &provider.ModelTable{}
	})
	d.events(engine.TurnStarted{TurnID: "t"}, engine.TurnUsage{Usage: provider.Usage{InputTokens: 500, OutputTokens: 5},
		Model: "mystery"}, engine.TurnComplete{TurnID: "t", Status: engine.TurnCompleted})
	d.mustShow("$ ?", "ctx ? 128k assumed")
	d.mustNotShow("$0.00")
}

// A request whose server reported no usage makes the cost unknown.
func TestUnreportedUsageMakesCostUnknown(t *testing.T) {
	d := newDirect(t, 140, 30)
	d.events(engine.TurnStarted{TurnID: "t"}, engine.TurnUsage{Unreported: true, Model: "deepseek-v4-pro"},
		engine.TurnComplete{TurnID: "t", Status: engine.TurnCompleted})
	d.mustShow("$ ?")
}

// The no-key banner names the route's provider, variable and auth command.
func TestNoKeyBannerNamesTheProvider(t *testing.T) {
	d := newDirect(t, 140, 30, func(o *Options) {
		o.Route = Route{Provider: "openrouter", Model: "deepseek/deepseek-v4-pro", BaseURL: "https://openrouter.ai/api/v1",
			KeyEnv: "OPENROUTER_API_KEY"}
	})
	d.mustShow("No API key found for OpenRouter", "export OPENROUTER_API_KEY", "auth set --provider openrouter")
	d.mustNotShow("DEEPSEEK_API_KEY")
}

// /status says which host the route's key goes to.
func TestStatusNamesTheKeyHost(t *testing.T) {
	d := newDirect(t, 140, 40, func(o *Options) {
		o.Route = Route{Provider: "openrouter", Model: "m", BaseURL: "https://openrouter.ai/api/v1", HasKey: true,
			KeySource: "env", KeyHost: "openrouter.ai"}
	})
	d.submit("/status")
	d.mustShow("API key: found (env), sent to openrouter.ai")
}
