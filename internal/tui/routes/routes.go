// Package routes is the TUI's child for the route of the next turn:
// /provider and /model with their pickers, the switch itself (through
// Routes, implemented by the host) and the route's live model list,
// fetched off the UI goroutine and kept once it arrives.
package routes

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// Route describes the model route for the header and /status.
type Route struct {
	Provider  string // provider id, e.g. "deepseek"
	Model     string
	BaseURL   string
	Effort    string // configured reasoning effort ("" = provider default)
	HasKey    bool   // a key was found, or the route needs none (loopback)
	KeySource string
	KeyEnv    string // the variable the route's key is read from ("" = DEEPSEEK_API_KEY)
	KeyHost   string // the host the key is sent to ("" = none is sent)
}

// EffortLabel is the reasoning effort as the header and /status say it:
// "auto" when the provider's default is in force.
func (r Route) EffortLabel() string {
	if r.Effort == "" {
		return "auto"
	}
	return r.Effort
}

// KeyEnv is the variable a missing-key message asks for.
func KeyEnv(r Route) string {
	if r.KeyEnv != "" {
		return r.KeyEnv
	}
	return provider.KeyEnvName(r.Provider)
}

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

// Host is what the child needs of the root model.
type Host interface {
	// System and SystemError add a System cell to the transcript.
	System(text string)
	SystemError(text string)
	// Push opens a view on top of the modal stack.
	Push(v views.View)
	// Busy reports whether a turn is running; Locked says that setting
	// waits for it.
	Busy() bool
	Locked(setting string)
	// Route is the route in force.
	Route() Route
	// SwitchRoute makes r the route (keeping the reasoning effort) with
	// table as the meters' model table.
	SwitchRoute(r Route, table *provider.ModelTable)
	// SetModelName makes name the route's model.
	SetModelName(name string)
}

// Config is what the child is built with.
type Config struct {
	Theme  *theme.Theme
	Routes Routes          // nil: the session cannot switch providers or list models
	Submit func(engine.Op) // sends an op to the engine
}

// Child is the child model.
type Child struct {
	c Config
	// live is the route's /models answer once fetched (nil before).
	live []provider.LiveModel
}

// New builds the child.
func New(c Config) *Child { return &Child{c: c} }

// Update takes a fetched model list; ok is false for any other message.
func (c *Child) Update(host Host, msg tea.Msg) (tea.Cmd, bool) {
	if msg, ok := msg.(modelsLoaded); ok {
		return c.modelsArrived(host, msg), true
	}
	return nil, false
}

// Picked applies a choice on the model or provider picker; ok is false
// for any other picker.
func (c *Child) Picked(host Host, p views.Picked) (tea.Cmd, bool) {
	switch p.Picker {
	case "model":
		return c.SetModel(host, p.Value), true
	case "provider":
		return c.switchProvider(host, p.Value, ""), true
	}
	return nil, false
}

// Provider is /provider [id [model]].
func (c *Child) Provider(host Host, arg string) tea.Cmd {
	if c.c.Routes == nil {
		host.SystemError("This session cannot switch providers.")
		return nil
	}
	fields := strings.Fields(arg)
	if len(fields) == 0 {
		route := host.Route()
		var items []views.Item
		for _, p := range c.c.Routes.Providers() {
			hint := p.BaseURL
			if !p.HasKey {
				hint += " · no key"
			}
			items = append(items, views.Item{Label: p.ID, Hint: hint, Value: p.ID})
		}
		host.Push(views.NewPicker(c.c.Theme, "provider", "Provider", items, route.Provider))
		return nil
	}
	model := ""
	if len(fields) > 1 {
		model = fields[1]
	}
	return c.switchProvider(host, fields[0], model)
}

// switchProvider makes id (and model, "" = its default) the route of the
// next turn.
func (c *Child) switchProvider(host Host, id, model string) tea.Cmd {
	if host.Busy() {
		host.Locked("Provider")
		return nil
	}
	r, table, err := c.c.Routes.Switch(id)
	if err != nil {
		host.SystemError("Provider not switched: " + err.Error())
		return nil
	}
	if model != "" {
		r.Model = model
	}
	c.live = nil
	host.SwitchRoute(r, table)
	c.c.Submit(engine.SetModel{Model: r.Model})
	shown := r.Model
	if shown == "" {
		shown = "the server's first listed model"
	}
	note := ""
	if !r.HasKey {
		note = " No key is found for it: " + noKeyHint(r)
	}
	host.System(fmt.Sprintf("Provider set to %s (%s) with %s for the next request.%s", r.Provider, r.BaseURL, shown, note))
	return nil
}

func noKeyHint(r Route) string {
	return fmt.Sprintf("run `codewhale auth set --provider %s` and restart, or export %s and restart.", r.Provider, KeyEnv(r))
}

// fetchModels asks the host for the route's model list off the UI loop.
func (c *Child) fetchModels(refresh, open bool) tea.Cmd {
	routes := c.c.Routes
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		models, err := routes.Models(ctx, refresh)
		return modelsLoaded{models: models, err: err, open: open}
	}
}

// modelsArrived stores a fetched list and, when asked, opens the picker.
func (c *Child) modelsArrived(host Host, msg modelsLoaded) tea.Cmd {
	route := host.Route()
	if len(msg.models) > 0 {
		c.live = msg.models
	}
	if msg.err != nil {
		host.SystemError("Model list: " + msg.err.Error())
	}
	if msg.open {
		c.openModelPicker(host)
	} else if msg.err == nil {
		host.System(fmt.Sprintf("%d model(s) listed by %s.", len(msg.models), route.Provider))
	}
	return nil
}

// openModelPicker lists the built-in models on DeepSeek's own route, then
// the server's list, then the model in use.
func (c *Child) openModelPicker(host Host) {
	route := host.Route()
	var items []views.Item
	if provider.IsFirstParty(route.BaseURL) {
		items = knownModels()
	}
	for _, l := range c.live {
		if !hasItem(items, l.ID) {
			items = append(items, views.Item{Label: l.ID, Hint: liveHint(l), Value: l.ID})
		}
	}
	if route.Model != "" && !hasItem(items, route.Model) {
		items = append(items, views.Item{Label: route.Model, Hint: "current", Value: route.Model})
	}
	host.Push(views.NewPicker(c.c.Theme, "model", "Model", items, route.Model))
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

// knownModels are the model picker's rows: the provider's model table.
func knownModels() []views.Item {
	var items []views.Item
	for _, m := range provider.Models() {
		items = append(items, views.Item{Label: m.ID, Hint: m.Hint, Value: m.ID})
	}
	return items
}

// SetModel switches the model for the next request.
func (c *Child) SetModel(host Host, name string) tea.Cmd {
	name = strings.TrimSpace(name)
	if host.Busy() {
		host.Locked("Model")
		return nil
	}
	name, force := strings.CutSuffix(name, " --force")
	name = strings.TrimSpace(name)
	route := host.Route()
	if name == route.Model {
		host.System("Already using " + name + ".")
		return nil
	}
	info, _ := provider.ResolveModel(name, provider.IsFirstParty(route.BaseURL))
	note := ""
	switch {
	case info.Known || force || c.listed(name):
	case provider.IsFirstParty(route.BaseURL):
		// The official endpoint serves only its catalogue; a typo would
		// fail at the next request instead of here.
		host.SystemError(fmt.Sprintf("Unknown model %q for %s (known: %s). Use /model %s --force to send it anyway.",
			name, config.ProviderDisplayName(route.Provider), strings.Join(knownModelIDs(), ", "), name))
		return nil
	case c.live != nil:
		note = " The server does not list it; the endpoint will say whether it exists."
	default:
		note = " It is not in the built-in catalogue; the endpoint will say whether it exists."
	}
	host.SetModelName(name)
	c.c.Submit(engine.SetModel{Model: name})
	host.System("Model set to " + name + " for the next request." + note)
	return nil
}

// listed reports whether the server's list (when fetched) names id.
func (c *Child) listed(id string) bool {
	for _, l := range c.live {
		if l.ID == id {
			return true
		}
	}
	return false
}

func knownModelIDs() []string {
	var ids []string
	for _, m := range provider.Models() {
		ids = append(ids, m.ID)
	}
	return ids
}

// Model is /model [name|refresh].
func (c *Child) Model(host Host, arg string) tea.Cmd {
	switch a := strings.TrimSpace(arg); a {
	case "":
		if c.c.Routes != nil && c.live == nil {
			return c.fetchModels(false, true)
		}
		c.openModelPicker(host)
	case "refresh":
		if c.c.Routes == nil {
			host.SystemError("This session has no model list to refresh; use /model <name>.")
			return nil
		}
		return c.fetchModels(true, true)
	default:
		return c.SetModel(host, a)
	}
	return nil
}

func hasItem(items []views.Item, v string) bool {
	for _, it := range items {
		if it.Value == v {
			return true
		}
	}
	return false
}
