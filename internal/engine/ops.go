package engine

import (
	"strings"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
)

// Op is a request from the host to the engine.
type Op interface{ isOp() }

// Provenance of a message; only external_user input may inherit
// auto-approval.
const (
	ProvenanceUser     = "external_user"
	ProvenanceSubagent = "subagent_handoff" // a parent agent's prompt to its child
)

// SendMessage starts a turn.
type SendMessage struct {
	Content    string
	Provenance string // default external_user
	// Scope narrows this one turn for a user command or /init (nil: a
	// plain message).
	Scope *TurnScope
	// Images go with the text as image blocks (images.Prepared.Block),
	// to a model that can see; for another the turn is refused before
	// anything is sent (CONTRACT.md §14.11).
	Images []provider.Block
}

// ApproveToolCall answers an ApprovalRequired with yes.
type ApproveToolCall struct {
	ID         string
	ForSession bool // allow this kind of call for the rest of the session
	// SaveRule also writes the card's exact allow rule to the global
	// permissions.toml ("Always allow this"); only for a card whose
	// ApprovalRequired.SaveRule is set.
	SaveRule bool
}

// DenyToolCall answers an ApprovalRequired with no.
type DenyToolCall struct {
	ID    string
	Abort bool // also cancel the turn
}

// ChangeMode changes mode, posture and/or allow-shell. While a turn runs
// the change is applied at its next step boundary.
type ChangeMode struct {
	Mode       *posture.Mode
	Posture    *posture.Posture
	AllowShell *bool
}

// SetModel changes the model for the next request.
type SetModel struct{ Model string }

// SetReasoningEffort changes the reasoning-effort tier (off, low, high,
// max, auto, …) from the next request on.
type SetReasoningEffort struct{ Effort string }

// Steer adds user text to the running turn at the next step.
type Steer struct{ Text string }

// SyncSession replaces the session (resume, load, /clear). Refused while a
// turn runs. Persist writes the new history through the Journal (a resumed
// session is already on disk and need not be).
type SyncSession struct {
	Session Session
	Persist bool
}

// SetTrust changes the file boundary from the next step on: Roots, when
// non-nil, replaces the per-workspace trusted roots (`/trust add|remove`);
// Mode, when set, turns trust mode on or off (`/trust on|off`), which adds
// the configured trusted_paths. Neither lifts the workspace boundary.
type SetTrust struct {
	Roots []string
	Mode  *bool
}

// Shutdown stops the engine.
type Shutdown struct{}

func (SendMessage) isOp()        {}
func (ApproveToolCall) isOp()    {}
func (DenyToolCall) isOp()       {}
func (ChangeMode) isOp()         {}
func (SetModel) isOp()           {}
func (SetReasoningEffort) isOp() {}
func (Steer) isOp()              {}
func (SyncSession) isOp()        {}
func (Shutdown) isOp()           {}
func (SetTrust) isOp()           {}

type approvalAnswer struct {
	approve    bool
	forSession bool
	saveRule   bool
	abort      bool
}

func (e *Engine) handle(op Op) {
	switch op := op.(type) {
	case ApproveToolCall:
		e.answer(op.ID, approvalAnswer{approve: true, forSession: op.ForSession, saveRule: op.SaveRule})
	case DenyToolCall:
		e.answer(op.ID, approvalAnswer{abort: op.Abort})
		if op.Abort {
			e.Cancel()
		}
	case ChangeMode, SetReasoningEffort, SetTrust:
		e.changeSettings(op)
	case SetModel:
		e.mu.Lock()
		e.sess.Model = op.Model
		e.mu.Unlock()
	case Steer:
		if t := strings.TrimSpace(op.Text); t != "" {
			e.mu.Lock()
			e.steers = append(e.steers, t)
			e.mu.Unlock()
		}
	case RewindHistory:
		e.rewind(op)
	case ForkSession:
		e.fork(op)
	case SyncSession:
		e.syncSession(op)
	case lateHookNotices:
		e.hookNotices(HookVerdict{Notices: op})
	}
}

// changeSettings applies a settings op to the engine's one Settings value
// and confirms it with SettingsChanged. A running turn adopts the new value
// at its next step boundary.
func (e *Engine) changeSettings(op Op) {
	e.mu.Lock()
	s := e.set
	switch op := op.(type) {
	case ChangeMode:
		if op.Mode != nil {
			s.Mode = *op.Mode
		}
		if op.Posture != nil {
			s.Posture = *op.Posture
		}
		if op.AllowShell != nil {
			s.AllowShell = *op.AllowShell
		}
	case SetReasoningEffort:
		s.Effort = op.Effort
	case SetTrust:
		if op.Roots != nil {
			s.TrustedRoots = append([]string(nil), op.Roots...)
		}
		if op.Mode != nil {
			s.Trust = *op.Mode
		}
	}
	e.set = s
	e.setGen++
	e.mu.Unlock()
	e.emit(SettingsChanged{Settings: s})
}

// syncSession replaces the session while idle and announces the new
// history whole.
func (e *Engine) syncSession(op SyncSession) {
	e.mu.Lock()
	if e.state != Idle {
		e.mu.Unlock()
		e.emit(Error{ErrorEnvelope{Message: "Cannot replace the session while a turn is running; press Esc first.",
			Category: "state", Severity: "warning", Recoverable: true}})
		return
	}
	e.sess = op.Session.clone()
	if e.sess.ID == "" {
		e.sess.ID = e.opts.NewID()
	}
	if e.sess.Workspace == "" {
		e.sess.Workspace = e.opts.Workspace
	}
	e.set.Mode, e.sess.Mode = e.sess.Mode, 0
	e.setGen++
	set := e.set
	info, msgs := e.infoLocked(), append([]provider.Message(nil), e.sess.Messages...)
	e.mu.Unlock()
	if op.Persist {
		e.rewriteHistory(info, msgs, "the repaired history of the resumed session")
		e.reportSaveFailure()
	}
	e.emit(SettingsChanged{Settings: set})
	e.emit(SessionUpdated{SessionID: info.ID, Messages: msgs})
}

// answer delivers an approval decision to the waiting call, if any.
func (e *Engine) answer(id string, a approvalAnswer) {
	e.mu.Lock()
	ch, ok := e.approvals[id]
	if ok {
		delete(e.approvals, id)
	}
	e.mu.Unlock()
	if ok {
		ch <- a
	}
}
