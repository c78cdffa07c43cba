package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// Routes is what /provider and /model need of the host (implemented in
// app): the providers it can switch to, the switch itself, and the live
// model list of the route in force (CONTRACT.md §14.7).
type Routes interface {
	// Providers lists the presets and the [providers.<id>] tables.
	Providers() []ProviderChoice
	// Switch makes provider id the route of the next turn and returns it.
	Switch(id string) (Route, *provider.ModelTable, error)
	// Models is the route's GET /models answer (cached for its TTL unless
	// refresh).
	Models(ctx context.Context, refresh bool) ([]provider.LiveModel, error)
}

// ProviderChoice is one row of the /provider picker.
type ProviderChoice struct {
	ID, Name, BaseURL string
	HasKey            bool // a key is found, or the provider needs none
}

// modelsLoaded carries a /models answer back to Update.
type modelsLoaded struct {
	models []provider.LiveModel
	err    error
	open   bool // open the picker with them
}

// providerCommand is /provider [id [model]].
func (m *Model) providerCommand(arg string) tea.Cmd {
	if m.o.Routes == nil {
		m.systemError("This session cannot switch providers.")
		return nil
	}
	fields := strings.Fields(arg)
	if len(fields) == 0 {
		var items []views.Item
		for _, p := range m.o.Routes.Providers() {
			hint := p.BaseURL
			if !p.HasKey {
				hint += " · no key"
			}
			items = append(items, views.Item{Label: p.ID, Hint: hint, Value: p.ID})
		}
		m.push(views.NewPicker(m.theme, "provider", "Provider", items, m.route.Provider))
		return nil
	}
	model := ""
	if len(fields) > 1 {
		model = fields[1]
	}
	return m.switchProvider(fields[0], model)
}

// switchProvider makes id (and model, "" = its default) the route of the
// next turn.
func (m *Model) switchProvider(id, model string) tea.Cmd {
	if m.turn.busy {
		m.systemError(locked("Provider"))
		return nil
	}
	r, table, err := m.o.Routes.Switch(id)
	if err != nil {
		m.systemError("Provider not switched: " + err.Error())
		return nil
	}
	if model != "" {
		r.Model = model
	}
	effort := m.route.Effort
	m.route = r
	m.route.Effort = effort
	m.liveModels = nil
	m.meter.Table, m.meter.FirstParty = table, provider.IsFirstParty(r.BaseURL)
	m.o.Engine.Submit(engine.SetModel{Model: r.Model})
	shown := r.Model
	if shown == "" {
		shown = "the server's first listed model"
	}
	note := ""
	if !r.HasKey {
		note = " No key is found for it: " + noKeyHint(r)
	}
	m.system(fmt.Sprintf("Provider set to %s (%s) with %s for the next request.%s", r.Provider, r.BaseURL, shown, note))
	return nil
}

func noKeyHint(r Route) string {
	return fmt.Sprintf("run `codewhale auth set --provider %s` and restart, or export %s and restart.", r.Provider, keyEnvOf(r))
}

// fetchModels asks the host for the route's model list off the UI loop.
func (m *Model) fetchModels(refresh, open bool) tea.Cmd {
	routes := m.o.Routes
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		models, err := routes.Models(ctx, refresh)
		return modelsLoaded{models: models, err: err, open: open}
	}
}

// modelsArrived stores a fetched list and, when asked, opens the picker.
func (m *Model) modelsArrived(msg modelsLoaded) tea.Cmd {
	if len(msg.models) > 0 {
		m.liveModels = msg.models
	}
	if msg.err != nil {
		m.systemError("Model list: " + msg.err.Error())
	}
	if msg.open {
		m.openModelPicker()
	} else if msg.err == nil {
		m.system(fmt.Sprintf("%d model(s) listed by %s.", len(msg.models), m.route.Provider))
	}
	return nil
}

// openModelPicker lists the built-in models on DeepSeek's own route, then
// the server's list, then the model in use.
func (m *Model) openModelPicker() {
	var items []views.Item
	if provider.IsFirstParty(m.route.BaseURL) {
		items = knownModels()
	}
	for _, l := range m.liveModels {
		if !hasItem(items, l.ID) {
			items = append(items, views.Item{Label: l.ID, Hint: liveHint(l), Value: l.ID})
		}
	}
	if m.route.Model != "" && !hasItem(items, m.route.Model) {
		items = append(items, views.Item{Label: m.route.Model, Hint: "current", Value: m.route.Model})
	}
	m.push(views.NewPicker(m.theme, "model", "Model", items, m.route.Model))
}

func liveHint(l provider.LiveModel) string {
	var parts []string
	if l.ContextWindow > 0 {
		parts = append(parts, fmt.Sprintf("%dk context", l.ContextWindow/1000))
	}
	if l.Price != nil {
		parts = append(parts, fmt.Sprintf("$%.3g/$%.3g per 1M", l.Price.Input, l.Price.Output))
	}
	if len(parts) == 0 {
		return "listed by the server"
	}
	return strings.Join(parts, " · ")
}
