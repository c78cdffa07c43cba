package engine

import (
	"github.com/codewhale/codewhale/internal/policy"
	"github.com/codewhale/codewhale/internal/provider"
)

// SessionInfo is the session metadata a Journal records with each change.
type SessionInfo struct {
	ID           string
	Model        string
	Workspace    string
	Mode         policy.Mode
	SystemPrompt string
	Usage        provider.Usage // session totals so far
}

// Journal makes the history durable as it changes (DECISIONS #22): the
// engine calls it synchronously after every append, before the next request,
// so a crash loses at most the message being streamed.
type Journal interface {
	// Append records messages added at the end of the history.
	Append(info SessionInfo, msgs ...provider.Message) error
	// Rewrite replaces the whole history (compaction, SyncSession).
	Rewrite(info SessionInfo, msgs []provider.Message) error
}

func (e *Engine) infoLocked() SessionInfo {
	return SessionInfo{ID: e.sess.ID, Model: e.sess.Model, Workspace: e.sess.Workspace, Mode: e.sess.Mode,
		SystemPrompt: e.sess.SystemPrompt, Usage: e.sess.Usage}
}

// journalAppend persists new messages; a failure is reported, not fatal.
func (e *Engine) journalAppend(info SessionInfo, msgs ...provider.Message) {
	if e.opts.Journal == nil {
		return
	}
	if err := e.opts.Journal.Append(info, msgs...); err != nil {
		e.emit(Error{ErrorEnvelope{Message: "Could not save the session: " + err.Error(), Category: "state",
			Severity: "warning", Recoverable: true}})
	}
}

func (e *Engine) journalRewrite(info SessionInfo, msgs []provider.Message) {
	if e.opts.Journal == nil {
		return
	}
	if err := e.opts.Journal.Rewrite(info, msgs); err != nil {
		e.emit(Error{ErrorEnvelope{Message: "Could not save the session: " + err.Error(), Category: "state",
			Severity: "warning", Recoverable: true}})
	}
}
