package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/checkpoint"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// undoState is what taking back and editing turns keep between steps.
type undoState struct {
	// hist is the engine's history as last announced (SessionUpdated, a
	// resume, a cut, a fork): where each typed message sits.
	hist    []provider.Message
	pending *pendingRestore // a plan waiting for the user's answer
	// resend is sent once the engine confirms a cut (/retry); editing goes
	// into the composer once a fork arrives (Esc Esc, /edit); forkTitle
	// names the fork /fork asked for.
	resend, editing, forkTitle string
	report                     string    // shown once the cut transcript is redrawn
	quietCut                   bool      // the cut takes back an interrupted message (interrupt.go)
	escAt                      time.Time // the last Esc on an empty composer
}

// escTwice is how soon a second Esc on an empty composer opens the list of
// earlier messages.
const escTwice = 1500 * time.Millisecond

// cutPoint is where the conversation would be cut back to before a turn.
type cutPoint struct {
	ok      bool
	at      int    // index of the turn's message
	prompt  string // its full typed text, which the engine checks
	dropped int    // messages from there on
	why     string // when !ok: why the conversation cannot go back
}

// cutFor finds a recorded turn's message in the history: at its recorded
// index, or (after a compaction) the nearest earlier typed message with
// its text.
func (m *Model) cutFor(t checkpoint.Turn) cutPoint {
	if len(t.Restores) > 0 {
		return cutPoint{why: "taking a restore back changes only files"}
	}
	h := m.undo.hist
	for i := min(t.MessageIndex, len(h)-1); i >= 0; i-- {
		if text := h[i].PromptText(); text != "" && samePrompt(text, t.Prompt) {
			return cutPoint{ok: true, at: i, prompt: text, dropped: len(h) - i}
		}
	}
	return cutPoint{why: "the turn's message is no longer in it (compacted or cut already)"}
}

// samePrompt compares a typed message with a turn's recorded prompt, which
// the recorder clipped to 200 characters ending in "…".
func samePrompt(full, recorded string) bool {
	if full == recorded {
		return true
	}
	prefix, clipped := strings.CutSuffix(recorded, "…")
	return clipped && strings.HasPrefix(full, prefix)
}

// cutBack asks the engine to cut the conversation back; resend, if set, is
// sent again once the cut is confirmed.
func (m *Model) cutBack(c cutPoint, resend string) tea.Cmd {
	if !c.ok {
		if resend != "" {
			m.systemError("Retry: " + c.why)
		}
		return nil
	}
	m.undo.resend = resend
	m.o.Engine.Submit(engine.RewindHistory{Keep: c.at, Prompt: c.prompt})
	return nil
}

// historyRewound redraws the transcript from the cut history, with the
// renderer a resume uses, and sends /retry's message.
func (m *Model) historyRewound(ev engine.HistoryRewound) tea.Cmd {
	if m.undo.quietCut {
		m.quietCutDone(ev)
		return nil
	}
	resend, report := m.undo.resend, m.undo.report
	m.undo.resend, m.undo.report = "", ""
	if ev.Refused != "" {
		if report != "" {
			m.system(report)
		}
		m.systemError("The conversation was not cut back: " + ev.Refused + ".")
		return nil
	}
	m.undo.hist = ev.Messages
	m.tr.Clear()
	rebuild(m.tr, ev.Messages)
	if report != "" {
		m.system(report)
	}
	m.system(fmt.Sprintf("Dropped %d message(s) from the conversation; the session file keeps them.", ev.Dropped))
	if resend != "" {
		return m.send(resend)
	}
	return nil
}

// retryCommand is /retry: send the last message again, after asking
// whether to undo its turn's file changes first (when it made any).
func (m *Model) retryCommand(arg string) tea.Cmd {
	if strings.TrimSpace(arg) != "" {
		m.systemError("Usage: /retry")
		return nil
	}
	if m.turn.busy {
		m.systemError("Retry waits for the running turn; press Esc to interrupt it first.")
		return nil
	}
	last := -1
	for i := len(m.undo.hist) - 1; i >= 0 && last < 0; i-- {
		if m.undo.hist[i].PromptText() != "" {
			last = i
		}
	}
	if last < 0 {
		m.system("Nothing to retry: there is no message of yours in this conversation.")
		return nil
	}
	text := m.undo.hist[last].PromptText()
	c := cutPoint{ok: true, at: last, prompt: text, dropped: len(m.undo.hist) - last}
	rec := m.o.Checkpoints
	if rec == nil {
		return m.cutBack(c, text)
	}
	sess := m.session
	return func() tea.Msg { return retryPlan(rec, sess, c) }
}

// retryPlan plans undoing the retried message's turn, if its turn is the
// last one that changed files; with no such turn the card is skipped.
func retryPlan(rec *checkpoint.Recorder, sess string, c cutPoint) tea.Msg {
	pr := pendingRestore{kind: kindRetry, cut: c, resend: c.prompt}
	turns, err := rec.Turns(sess)
	if err != nil {
		return plannedMsg{pr: pr, err: err}
	}
	for i := len(turns) - 1; i >= 0; i-- {
		if t := turns[i]; !t.Undone {
			if len(t.Restores) > 0 || t.MessageIndex < c.at || !samePrompt(c.prompt, t.Prompt) {
				break
			}
			ctx, cancel := contextMinute()
			defer cancel()
			pr.p, err = rec.PlanUndo(ctx, sess, 1)
			return plannedMsg{pr: pr, err: err}
		}
	}
	return retryNow{pr}
}

// retryNow is a retry whose turn changed no files: no question to ask.
type retryNow struct{ pr pendingRestore }

// editCommand is /edit (and Esc Esc on an empty composer): a list of the
// messages you typed, newest first; the one picked is put in the composer
// in a new session forked from before it.
func (m *Model) editCommand(arg string) tea.Cmd {
	if strings.TrimSpace(arg) != "" {
		m.systemError("Usage: /edit (or Esc Esc on an empty composer)")
		return nil
	}
	if m.turn.busy {
		m.systemError("Editing a message waits for the running turn; press Esc to interrupt it first.")
		return nil
	}
	var items []views.Item
	for i := len(m.undo.hist) - 1; i >= 0; i-- {
		if text := m.undo.hist[i].PromptText(); text != "" {
			hint := fmt.Sprintf("%d message(s) after it", len(m.undo.hist)-i-1)
			items = append(items, views.Item{Label: termtext.Truncate(termtext.OneLine(text), 60, "…"), Hint: hint,
				Value: strconv.Itoa(i)})
		}
	}
	if len(items) == 0 {
		m.system("No earlier messages to edit in this conversation.")
		return nil
	}
	p := views.NewPicker(m.theme, "edit", "Edit an earlier message — Enter forks the conversation from there", items, "")
	p.Filter = true
	m.push(p)
	return nil
}

// escOnEmpty is Esc on an empty, idle composer: a second one soon after
// opens the earlier messages.
func (m *Model) escOnEmpty() tea.Cmd {
	if m.turn.busy || !m.typedSomething() {
		return nil
	}
	if now := m.now(); now.Sub(m.undo.escAt) <= escTwice {
		m.undo.escAt = time.Time{}
		return m.editCommand("")
	}
	m.undo.escAt = m.now()
	return m.setStatus("Esc again to edit an earlier message", sevInfo)
}

// typedSomething reports whether the conversation has a message the user
// typed.
func (m *Model) typedSomething() bool {
	for _, msg := range m.undo.hist {
		if msg.Typed() {
			return true
		}
	}
	return false
}

// editPicked forks the conversation from before message i.
func (m *Model) editPicked(v string) tea.Cmd {
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= len(m.undo.hist) {
		return nil
	}
	text := m.undo.hist[i].PromptText()
	m.undo.editing = text
	m.o.Engine.Submit(engine.ForkSession{ID: m.o.NewID(), Keep: i, Prompt: text})
	return nil
}

// forkCommand is /fork [title]: continue in a copy of this session.
func (m *Model) forkCommand(arg string) tea.Cmd {
	if m.turn.busy {
		m.systemError("Fork waits for the running turn; press Esc to interrupt it first.")
		return nil
	}
	if len(m.undo.hist) == 0 {
		m.system("Nothing to fork yet: this conversation is empty.")
		return nil
	}
	m.undo.forkTitle = strings.TrimSpace(arg)
	m.o.Engine.Submit(engine.ForkSession{ID: m.o.NewID(), Keep: -1})
	return nil
}

// sessionForked switches the UI to the fork: its transcript redrawn from
// the copied history, and an edited message back in the composer.
func (m *Model) sessionForked(ev engine.SessionForked) tea.Cmd {
	editing, title := m.undo.editing, m.undo.forkTitle
	m.undo.editing, m.undo.forkTitle = "", ""
	if ev.Refused != "" {
		m.systemError("No fork was made: " + ev.Refused + ".")
		return nil
	}
	m.session, m.undo.hist = ev.SessionID, ev.Messages
	m.tr.Clear()
	m.snapshot = nil
	m.meter = m.freshMeter()
	rebuild(m.tr, ev.Messages)
	m.system(fmt.Sprintf("Forked session %s from %s (%d message(s) copied); %s is unchanged — /sessions opens it.",
		session.ShortID(ev.SessionID), session.ShortID(ev.From), ev.Kept, session.ShortID(ev.From)))
	if editing != "" {
		m.comp.SetValue(editing)
		m.refreshPopup()
		m.system("Edit the message and press Enter to send it. The workspace's files are as they are now; /restore takes them back.")
	}
	if title != "" && ev.Kept > 0 {
		return m.renameTo(title)
	}
	return nil
}
