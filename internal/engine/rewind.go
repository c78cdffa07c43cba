package engine

import (
	"errors"
	"fmt"

	"github.com/codewhale/codewhale/internal/provider"
)

// RewindHistory cuts the conversation back to before one of the user's
// messages (/undo, /restore, /retry): the first Keep messages stay and the
// rest leave the history. The session file keeps them — the journal records
// the cut as a line of its own (HistoryCutter), so nothing is rewritten
// away. Refused while a turn runs.
type RewindHistory struct {
	// Keep is the index of the user message the cut starts at.
	Keep int
	// Prompt is that message's typed text (Message.PromptText). A
	// compaction since shifts indices, so the cut is made at the nearest
	// earlier message with exactly this text, and refused (Refused) when
	// none is left. "" cuts at Keep without a check.
	Prompt string
}

// ForkSession continues in a new session that holds a copy of the history
// (/fork, and editing an earlier message): the original session stays as
// it is on disk. Refused while a turn runs.
type ForkSession struct {
	ID string // the new session's id; "" makes one
	// Keep is how many messages the fork copies: the index of a user
	// message to fork from before it, or -1 for the whole history. Prompt
	// checks it as for RewindHistory.
	Keep   int
	Prompt string
}

func (RewindHistory) isOp() {}
func (ForkSession) isOp()   {}

// HistoryRewound answers every RewindHistory: Messages is the history now,
// for a host to redraw its transcript from. A cut also sends, just before,
// the SessionUpdated of the whole new history. Refused, when set, says why
// nothing was cut.
type HistoryRewound struct {
	SessionID string
	Kept      int
	Dropped   int
	Messages  []provider.Message
	Refused   string
}

// SessionForked answers every ForkSession: the engine now runs session
// SessionID, a copy of the first Kept messages of session From, whose
// SessionUpdated (the whole history) comes just before. Refused, when set,
// says why no fork was made (the engine stays in From).
type SessionForked struct {
	From      string
	SessionID string
	Kept      int
	Messages  []provider.Message
	Refused   string
}

func (HistoryRewound) isEvent() {}
func (SessionForked) isEvent()  {}

// HistoryCutter is a Journal that records a cut of the history as a new
// line, keeping the messages it drops in the file. A Journal without it
// gets the shorter history through Rewrite.
type HistoryCutter interface {
	Cut(info SessionInfo, keep int) error
}

// errBusyHistory is the answer to a history change while a turn runs.
const errBusyHistory = "the conversation cannot change while a turn is running; press Esc first"

// cutPoint finds where a cut at keep, checked against prompt, falls in
// msgs: keep itself when message keep is that prompt, else the nearest
// earlier user message with exactly that text.
func cutPoint(msgs []provider.Message, keep int, prompt string) (int, error) {
	if keep < 0 || keep > len(msgs) {
		return 0, fmt.Errorf("message %d is not in this conversation (it has %d)", keep, len(msgs))
	}
	if prompt == "" {
		return keep, nil
	}
	for i := min(keep, len(msgs)-1); i >= 0; i-- {
		if msgs[i].PromptText() == prompt {
			return i, nil
		}
	}
	return 0, fmt.Errorf("the message %q is no longer in the conversation (a compaction summarised it)", firstRunes(prompt, 60))
}

// rewind handles RewindHistory while idle.
func (e *Engine) rewind(op RewindHistory) {
	e.mu.Lock()
	at, err := cutPoint(e.sess.Messages, op.Keep, op.Prompt)
	if e.state != Idle {
		err = errors.New(errBusyHistory)
	}
	if err != nil {
		ev := HistoryRewound{SessionID: e.sess.ID, Kept: len(e.sess.Messages), Refused: err.Error(),
			Messages: append([]provider.Message(nil), e.sess.Messages...)}
		e.mu.Unlock()
		e.emit(ev)
		return
	}
	dropped := len(e.sess.Messages) - at
	e.sess.Messages = e.sess.Messages[:at:at]
	info, dirty := e.infoLocked(), e.saved.dirty
	kept := append([]provider.Message(nil), e.sess.Messages...)
	e.mu.Unlock()
	if c, ok := e.opts.Journal.(HistoryCutter); ok && !dirty {
		e.saveDone(c.Cut(info, at), "the cut of the conversation")
	} else {
		e.rewriteHistory(info, kept, "the cut of the conversation")
	}
	e.reportSaveFailure()
	e.emit(SessionUpdated{SessionID: info.ID, Messages: kept})
	e.emit(HistoryRewound{SessionID: info.ID, Kept: at, Dropped: dropped, Messages: kept})
}

// fork handles ForkSession while idle: the new session is written whole
// (it has no file yet), so the original's file is never touched.
func (e *Engine) fork(op ForkSession) {
	e.mu.Lock()
	at, err := len(e.sess.Messages), error(nil)
	if op.Keep >= 0 {
		at, err = cutPoint(e.sess.Messages, op.Keep, op.Prompt)
	}
	if e.state != Idle {
		err = errors.New(errBusyHistory)
	}
	if err != nil {
		ev := SessionForked{From: e.sess.ID, SessionID: e.sess.ID, Kept: len(e.sess.Messages), Refused: err.Error(),
			Messages: append([]provider.Message(nil), e.sess.Messages...)}
		e.mu.Unlock()
		e.emit(ev)
		return
	}
	from := e.sess.ID
	next := e.sess.clone()
	next.Messages = next.Messages[:at:at]
	next.ID, next.Parent, next.Usage = op.ID, from, provider.Usage{}
	if next.ID == "" {
		next.ID = e.opts.NewID()
	}
	e.sess = next
	info, kept := e.infoLocked(), append([]provider.Message(nil), next.Messages...)
	e.mu.Unlock()
	if at > 0 {
		// An empty fork gets its file with its first message.
		e.rewriteHistory(info, kept, "the forked session")
	}
	e.reportSaveFailure()
	e.emit(SessionUpdated{SessionID: info.ID, Messages: kept})
	e.emit(SessionForked{From: from, SessionID: info.ID, Kept: at, Messages: kept})
}
