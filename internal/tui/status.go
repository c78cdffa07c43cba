package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
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

// statusLine is the transient status-line text: Status events, toasts
// that expire on their own, and errors that stay until the next turn.
type statusLine struct {
	now func() time.Time
	msg status
}

// status is one status-line message.
type status struct {
	text  string
	sev   severity
	until time.Time // zero: until replaced
	// retry, when set, is a provider retry announced at since: the text
	// counts its wait down instead of saying the first figure throughout.
	retry *engine.Retry
	since time.Time
}

// set shows text and schedules its expiry by severity: info 4 s, success
// and warning 5 s; an error stays until the next turn.
func (s *statusLine) set(text string, sev severity) tea.Cmd {
	switch sev {
	case sevInfo:
		return s.setFor(text, sev, infoToast)
	case sevSuccess, sevWarning:
		return s.setFor(text, sev, longToast)
	}
	s.msg = status{text: text, sev: sev}
	return nil
}

// setFor shows text for life.
func (s *statusLine) setFor(text string, sev severity, life time.Duration) tea.Cmd {
	s.msg = status{text: text, sev: sev, until: s.now().Add(life)}
	return tea.Tick(life, func(time.Time) tea.Msg { return expireMsg{} })
}

// hold shows text until it is replaced or cleared.
func (s *statusLine) hold(text string, sev severity) { s.msg = status{text: text, sev: sev} }

// retrying shows a provider retry, counting its wait down, for as long as
// the wait.
func (s *statusLine) retrying(ev engine.Retry) tea.Cmd {
	cmd := s.setFor(retryLine(ev), sevWarning, max(ev.Wait+time.Second, longToast))
	s.msg.retry, s.msg.since = &ev, s.now()
	return cmd
}

// clear removes the text; clearIf only while it still says text.
func (s *statusLine) clear() { s.msg = status{} }

func (s *statusLine) clearIf(text string) {
	if s.msg.text == text {
		s.clear()
	}
}

// clearError removes a sticky error (a new turn began); clearToast
// removes anything but one (a turn ended well).
func (s *statusLine) clearError() {
	if s.msg.sev == sevError {
		s.clear()
	}
}

func (s *statusLine) clearToast() {
	if s.msg.sev != sevError {
		s.clear()
	}
}

// current is the text still in force.
func (s *statusLine) current() (string, severity) {
	msg := s.msg
	if msg.text == "" || (!msg.until.IsZero() && s.now().After(msg.until)) {
		return "", sevInfo
	}
	if r := msg.retry; r != nil {
		left := *r
		left.Wait = max(r.Wait-s.now().Sub(msg.since), 0)
		return retryLine(left), msg.sev
	}
	return msg.text, msg.sev
}

type (
	tickMsg   struct{}
	expireMsg struct{}
	// signalMsg reports SIGTERM/SIGHUP: quit, restoring the terminal.
	signalMsg struct{}
)

// ensureTick starts the animation tick while a turn or a call runs.
func (m *Model) ensureTick() tea.Cmd {
	if m.modes.has(modeTicking) || (!m.turn.busy && m.turn.running == 0) {
		return nil
	}
	m.modes.set(modeTicking, true)
	return tea.Tick(tickEvery, func(time.Time) tea.Msg { return tickMsg{} })
}

// retryLine is a retry's status text.
func retryLine(r engine.Retry) string {
	return termtext.OneLine(termtext.Sanitize(r.Line())) // the phase strip says how to stop
}
