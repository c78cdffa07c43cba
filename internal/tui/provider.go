package tui

import "github.com/codewhale/codewhale/internal/tui/routes"

// Routes is what /provider and /model need of the host (implemented in
// app): the providers it can switch to, the switch itself, and the live
// model list of the route in force (CONTRACT.md §14.7).
type Routes = routes.Routes

// ProviderChoice is one row of the /provider picker.
type ProviderChoice = routes.ProviderChoice
