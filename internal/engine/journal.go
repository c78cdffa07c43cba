package engine

import (
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
)

// SessionInfo is the session metadata a Journal records with each change.
type SessionInfo struct {
	ID           string
	Model        string
	Workspace    string
	Mode         posture.Mode
	SystemPrompt string
	Usage        provider.Usage // session totals so far
	Parent       string         // the session this one was forked from, recorded when its file is created
}

// Journal makes the history durable as it changes (CONTRACT.md §15.22): the
// engine calls it synchronously after every append, before the next request,
// and for each tool result as soon as that call completes, so a crash loses
// at most the message being streamed and the calls still running.
type Journal interface {
	// Append records messages added at the end of the history.
	Append(info SessionInfo, msgs ...provider.Message) error
	// Rewrite replaces the whole history (SyncSession, resync after a
	// failed save).
	Rewrite(info SessionInfo, msgs []provider.Message) error
	// Compacted records that the first replaced messages of the history are
	// now summary. The replaced messages stay in the record: compaction
	// never destroys the original.
	Compacted(info SessionInfo, replaced int, summary provider.Message) error
}

// saveState is what the engine knows about the session file's durability.
// Guarded by Engine.mu.
type saveState struct {
	// dirty: a save failed, so the file lacks messages the history has; the
	// next save rewrites the whole history rather than appending after a gap.
	dirty bool
	// failure is a save failure the running turn has not reported yet;
	// unsaved says what it left out. A turn stops at its next step or tool
	// run once it is set: nothing more runs that cannot be recorded.
	failure error
	unsaved []string
}

func (e *Engine) infoLocked() SessionInfo {
	return SessionInfo{ID: e.sess.ID, Model: e.sess.Model, Workspace: e.sess.Workspace, Mode: e.set.Mode,
		SystemPrompt: e.sess.SystemPrompt, Usage: e.sess.Usage, Parent: e.sess.Parent}
}

// save persists msgs, just appended to the history (none: new totals). After
// an earlier failure it rewrites the whole history instead.
func (e *Engine) save(what string, msgs ...provider.Message) bool {
	if e.opts.Journal == nil {
		return true
	}
	e.mu.Lock()
	info, dirty := e.infoLocked(), e.saved.dirty
	var all []provider.Message
	if dirty {
		all = append([]provider.Message(nil), e.sess.Messages...)
	}
	e.mu.Unlock()
	var err error
	if dirty {
		err = e.opts.Journal.Rewrite(info, all)
	} else {
		err = e.opts.Journal.Append(info, msgs...)
	}
	return e.saveDone(err, what)
}

// saveResult persists one completed tool result that is not in the history
// yet (results join the history in call order when the batch ends). Once a
// save has failed, results are not written past the gap; they are reported.
func (e *Engine) saveResult(what string, m provider.Message) bool {
	if e.opts.Journal == nil {
		return true
	}
	e.mu.Lock()
	info, dirty := e.infoLocked(), e.saved.dirty
	e.mu.Unlock()
	if dirty {
		return e.saveDone(errNotSavedAfterGap, what)
	}
	return e.saveDone(e.opts.Journal.Append(info, m), what)
}

var errNotSavedAfterGap = fmt.Errorf("an earlier save failed")

// saveDone records the outcome of a save.
func (e *Engine) saveDone(err error, what string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err == nil {
		if e.saved.failure == nil {
			e.saved.dirty = false
		}
		return true
	}
	e.saved.dirty = true
	if e.saved.failure == nil || e.saved.failure == errNotSavedAfterGap {
		e.saved.failure = err
	}
	if what != "" {
		e.saved.unsaved = append(e.saved.unsaved, what)
	}
	return false
}

// saveFailing reports whether a save failed that the turn has not reported.
func (e *Engine) saveFailing() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.saved.failure != nil
}

// takeSaveFailure returns the unreported save failure as the message the
// user and the model get, and clears it; "" when every save succeeded.
func (e *Engine) takeSaveFailure() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	f := e.saved
	if f.failure == nil {
		return ""
	}
	e.saved.failure, e.saved.unsaved = nil, nil
	what := "the session's latest changes"
	if len(f.unsaved) > 0 {
		what = strings.Join(f.unsaved, "; ")
	}
	return fmt.Sprintf("Could not save the session: %v. Not saved: %s. The turn stopped so that nothing more runs that cannot be recorded; "+
		"what was not saved is still in this conversation and is written with the next save once there is room (free disk space, then send a message). "+
		"If codewhale exits first, resuming shows those tool calls as interrupted.", f.failure, what)
}

// reportSaveFailure shows a save failure outside a turn (a SyncSession or
// compaction rewrite).
func (e *Engine) reportSaveFailure() {
	if msg := e.takeSaveFailure(); msg != "" {
		e.emit(Error{ErrorEnvelope{Message: msg, Category: "state", Severity: "error", Recoverable: true}})
	}
}

// saveCompaction records a compaction (after a failed save: the whole
// history, as every save after a failure is).
func (e *Engine) saveCompaction(replaced int, summary provider.Message) {
	if e.opts.Journal == nil {
		return
	}
	e.mu.Lock()
	info, dirty := e.infoLocked(), e.saved.dirty
	all := append([]provider.Message(nil), e.sess.Messages...)
	e.mu.Unlock()
	if dirty {
		e.saveDone(e.opts.Journal.Rewrite(info, all), "the compacted history")
		return
	}
	e.saveDone(e.opts.Journal.Compacted(info, replaced, summary), "the compaction summary")
}

// rewriteHistory replaces the stored history (compaction, SyncSession).
func (e *Engine) rewriteHistory(info SessionInfo, msgs []provider.Message, what string) {
	if e.opts.Journal == nil {
		return
	}
	e.saveDone(e.opts.Journal.Rewrite(info, msgs), what)
}

// describeMessage says what a history message is, for a save-failure report.
func describeMessage(m provider.Message) string {
	switch {
	case m.HasBlock(provider.BlockToolResult):
		return "a tool result"
	case m.Role == provider.RoleAssistant && len(m.ToolUses()) > 0:
		names := make([]string, 0, len(m.ToolUses()))
		for _, c := range m.ToolUses() {
			names = append(names, c.Name)
		}
		return "the model's tool calls (" + strings.Join(names, ", ") + ")"
	case m.Role == provider.RoleAssistant, m.Role == provider.RoleAssistantInterrupted:
		return "the model's reply"
	}
	return "the message " + firstRunes(strings.Join(strings.Fields(m.Text()), " "), 60)
}
