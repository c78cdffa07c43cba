package tui

import "github.com/codewhale/codewhale/internal/provider"

// imagesWait says why a message with chips cannot go yet ("" when it
// can): a read in flight, or a running turn.
func (m *Model) imagesWait() string {
	switch {
	case m.attach.Reading():
		return "Still reading an image: send once its chip shows"
	case m.turn.busy:
		return "A turn is running: images go with a message sent after it ends (Esc interrupts it)"
	}
	return ""
}

// visionRefusal is the route's NoVisionError when its model cannot take
// images, checked before the composer is emptied (the engine checks
// again); nil when it can, or when the server names the model.
func (m *Model) visionRefusal() error {
	if m.attach.Len() == 0 || m.route.Model == "" {
		return nil
	}
	return m.meterTable().CheckVision(m.route.Model, m.route.Provider, provider.IsFirstParty(m.route.BaseURL))
}

// chipRows is the chip row when the layout gives it one.
func (m *Model) chipRows(n int) []string {
	if n == 0 {
		return nil
	}
	return []string{m.attach.View(m.w)}
}
