package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/transcript"
)

// severity of a status-line message.
type severity = theme.Severity

const (
	sevInfo    = theme.Info
	sevSuccess = theme.Success
	sevWarning = theme.Warning
	sevError   = theme.Error
)

// Toast lifetimes: info 4 s, success and warning 5 s; errors
// stay until the next turn.
const (
	infoToast = 4 * time.Second
	longToast = 5 * time.Second
	// quitWindow is how long a first Ctrl+C keeps quitting armed.
	quitWindow = 2 * time.Second
	// tickEvery animates spinners and refreshes live durations.
	tickEvery = 100 * time.Millisecond
)

// status is the transient status-line text.
type status struct {
	text  string
	sev   severity
	until time.Time // zero: until replaced
	// retry, when set, is a provider retry announced at since: the text
	// counts its wait down instead of saying the first figure throughout.
	retry *engine.Retry
	since time.Time
}

type (
	tickMsg   struct{}
	expireMsg struct{}
	// signalMsg reports SIGTERM/SIGHUP: quit, restoring the terminal.
	signalMsg struct{}
)

// setStatus shows text in the status line and schedules its expiry.
func (m *Model) setStatus(text string, sev severity) tea.Cmd {
	m.status = status{text: text, sev: sev}
	var life time.Duration
	switch sev {
	case sevInfo:
		life = infoToast
	case sevSuccess, sevWarning:
		life = longToast
	default:
		return nil
	}
	m.status.until = m.now().Add(life)
	return tea.Tick(life, func(time.Time) tea.Msg { return expireMsg{} })
}

// statusText is the status text still in force.
func (m *Model) statusText() (string, severity) {
	s := m.status
	if s.text == "" || (!s.until.IsZero() && m.now().After(s.until)) {
		return "", sevInfo
	}
	if r := s.retry; r != nil {
		left := *r
		left.Wait = max(r.Wait-m.now().Sub(s.since), 0)
		return retryLine(left), s.sev
	}
	return s.text, s.sev
}

// animating reports whether something on screen moves on its own.
func (m *Model) animating() bool {
	return m.turn.busy || m.turn.running > 0
}

// ensureTick starts the animation tick when something moves.
func (m *Model) ensureTick() tea.Cmd {
	if m.modes.has(modeTicking) || !m.animating() {
		return nil
	}
	m.modes.set(modeTicking, true)
	return tea.Tick(tickEvery, func(time.Time) tea.Msg { return tickMsg{} })
}

// handleTick advances the spinner; the tick stops when nothing moves.
func (m *Model) handleTick() tea.Cmd {
	m.modes.set(modeTicking, false)
	if m.o.LowMotion {
		// Low motion: no spinner frames, but live durations still update.
		m.env.Frame = 0
	} else {
		m.env.Frame++
	}
	return m.ensureTick()
}

// spinner is the current running marker.
func (m *Model) spinner() string {
	if m.o.LowMotion {
		return transcript.LowMotionFrame
	}
	return transcript.SpinnerFrames[m.env.Frame%len(transcript.SpinnerFrames)]
}

// retryLine is a retry's status text.
func retryLine(r engine.Retry) string {
	return termtext.OneLine(termtext.Sanitize(r.Line())) // the phase strip says how to stop
}
