package tui

import "github.com/codewhale/codewhale/internal/tui/usage"

// childCosts are the sub-agents' usage priced by model (nil without a
// manager).
func (m *Model) childCosts() []usage.ModelCost {
	if m.o.Agents == nil {
		return nil
	}
	return m.meter.Children(m.o.Agents.UsageByModel())
}
