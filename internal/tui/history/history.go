// Package history is the TUI's child for going back in time: /undo,
// /restore, /retry, /edit (and Esc Esc), /fork, /diff and the session
// commands (/sessions, /rename, /export, archive, prune, resume). It
// keeps the engine's history as last announced and the plan waiting for
// an answer; it reaches the root model only through Host, and its own
// background work comes back to Update as messages.
package history

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/checkpoint"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// Host is what the child needs of the root model.
type Host interface {
	// System and SystemError add a System cell to the transcript.
	System(text string)
	SystemError(text string)
	// Status shows a message on the status line.
	Status(text string, sev theme.Severity) tea.Cmd
	// Push opens a view on top of the modal stack.
	Push(v views.View)
	// Busy reports whether a turn is running.
	Busy() bool
	// Session is the current session's id.
	Session() string
	// Send sends text as a new message.
	Send(text string) tea.Cmd
	// Redraw replaces the transcript with stored messages.
	Redraw(msgs []provider.Message)
	// Forked switches the UI to a fork of the session (its tool snapshot
	// and meters start afresh); the transcript is redrawn separately.
	Forked(id string)
	// SetDraft puts text in the composer.
	SetDraft(text string)
	// Resumed switches the UI to a loaded session: its id, mode, model,
	// meters, transcript and composer history.
	Resumed(l *session.Loaded)
}

// Config is what the child is built with.
type Config struct {
	Theme  *theme.Theme
	Submit func(engine.Op) // sends an op to the engine
	Now    func() time.Time
	NewID  func() string // ids of forks
	// Checkpoints records each turn's file changes (nil: off, CheckpointsOff
	// says why).
	Checkpoints    *checkpoint.Recorder
	CheckpointsOff string
	// Home is where sessions are stored ("" = none); Journal claims a
	// session before it is resumed.
	Home, Workspace string
	Journal         *session.Journal
}

// History is the child model.
type History struct {
	c Config
	// hist is the engine's history as last announced (SessionUpdated, a
	// resume, a cut, a fork): where each typed message sits.
	hist    []provider.Message
	pending *pendingRestore // a plan waiting for the user's answer
	// resend is sent once the engine confirms a cut (/retry); editing goes
	// into the composer once a fork arrives (Esc Esc, /edit); forkTitle
	// names the fork /fork asked for.
	resend, editing, forkTitle string
	report                     string    // shown once the cut transcript is redrawn
	quietCut                   bool      // the cut takes back an interrupted message
	escAt                      time.Time // the last Esc on an empty composer
}

// New builds the child.
func New(c Config) *History { return &History{c: c} }

// Messages is the engine's history as last announced.
func (h *History) Messages() []provider.Message { return h.hist }

// Reset forgets the history and anything pending (a new session).
func (h *History) Reset() { *h = History{c: h.c} }

// noteMsg adds a System cell from work done off the UI goroutine.
type noteMsg struct{ text string }

// Update handles the child's own messages; ok is false for any other.
func (h *History) Update(host Host, msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case plannedMsg:
		return h.planned(host, msg), true
	case carriedMsg:
		return h.carried(host, msg), true
	case turnsMsg:
		return h.showTurns(host, msg), true
	case retryNow:
		return h.cutBack(host, msg.pr.cut, msg.pr.resend), true
	case diffMsg:
		return h.showDiff(host, msg), true
	case sessionsMsg:
		return h.showSessions(host, msg), true
	case resumedMsg:
		return h.resumed(host, msg), true
	case noteMsg:
		host.System(msg.text)
		return nil, true
	}
	return nil, false
}

// Event applies an engine event about the history; ok is false for any
// other.
func (h *History) Event(host Host, ev engine.Event) (cmd tea.Cmd, ok bool) {
	switch ev := ev.(type) {
	case engine.SessionUpdated:
		h.hist = ev.Apply(h.hist)
		return nil, true
	case engine.HistoryRewound:
		return h.historyRewound(host, ev), true
	case engine.SessionForked:
		return h.sessionForked(host, ev), true
	}
	return nil, false
}

// Picker names of the child's views.
const (
	SessionPicker  = "session"
	ArchivedPicker = "archived-session"
	restoreTurn    = "restore-turn"
	editPicker     = "edit"
)

// Picked applies a choice on one of the child's pickers and cards; ok is
// false for any other.
func (h *History) Picked(host Host, p views.Picked) (cmd tea.Cmd, ok bool) {
	switch p.Picker {
	case kindUndo, kindRestore, kindRetry:
		return h.answered(host, p.Picker, p.Value), true
	case restoreTurn:
		return h.restorePicked(host, p.Value), true
	case editPicker:
		return h.editPicked(p.Value), true
	case SessionPicker, ArchivedPicker:
		return h.Resume(host, p.Value), true
	}
	return nil, false
}

// ViewEvent applies a deletion or an archiving on the session pickers on
// top; ok is false for any other event.
func (h *History) ViewEvent(host Host, top views.View, ev any) (cmd tea.Cmd, ok bool) {
	p, isPicker := top.(*views.Picker)
	switch ev := ev.(type) {
	case views.Deleted:
		if isPicker && (ev.Picker == SessionPicker || ev.Picker == ArchivedPicker) {
			return h.deleteSession(host, p, ev.Value), true
		}
		return nil, true
	case views.Archived:
		if isPicker {
			return h.archiveSession(host, p, ev.Value), true
		}
		return nil, true
	}
	return nil, false
}
